package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestTopicLifecycleOnCluster: creation spreads replicas and leaders over
// the brokers, added partitions come online, and deletion goes through
// /admin/delete_topics, stops every replica and removes its files.
func TestTopicLifecycleOnCluster(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	adm := kadm.NewClient(cl)
	const topic = "lifecycle"
	if _, err := adm.CreateTopic(ctx, 6, 2, nil, topic); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 30*time.Second, "6 partitions with leaders", func() (bool, string) {
		parts, err := testcluster.Partitions(ctx, cl, topic)
		if err != nil || len(parts) != 6 {
			return false, fmt.Sprint(len(parts), err)
		}
		leaders := map[int32]int{}
		for _, p := range parts {
			if p.Leader < 0 {
				return false, "leaderless partition"
			}
			leaders[p.Leader]++
		}
		// Round-robin placement: each broker leads two partitions.
		return len(leaders) == 3 && leaders[1] == 2 && leaders[2] == 2 && leaders[3] == 2, fmt.Sprint(leaders)
	})
	prod := c.Client(kgo.DefaultProduceTopic(topic))
	for i := 0; i < 100; i++ {
		if err := prod.ProduceSync(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := adm.CreatePartitions(ctx, 3, topic); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 30*time.Second, "9 partitions online", func() (bool, string) {
		parts, err := testcluster.Partitions(ctx, cl, topic)
		if err != nil {
			return false, err.Error()
		}
		online := 0
		for _, p := range parts {
			if p.Leader >= 0 {
				online++
			}
		}
		return online == 9, fmt.Sprint(online)
	})
	dirs := func() []string {
		var out []string
		for _, b := range c.Brokers() {
			m, _ := filepath.Glob(filepath.Join(b.DataDir(), topic+"-*"))
			out = append(out, m...)
		}
		return out
	}
	if n := len(dirs()); n != 18 {
		t.Fatalf("%d partition directories, want 18 (9 partitions x RF 2)", n)
	}
	if _, err := adm.DeleteTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 60*time.Second, "deleted topic's files gone", func() (bool, string) {
		d := dirs()
		return len(d) == 0, strings.Join(d, " ")
	})
	tree := testcluster.ZooKeeperShell(t, c.ZK.Connect(), "ls", "-R", "/")
	if strings.Contains(tree, "/brokers/topics/"+topic) || strings.Contains(tree, "/admin/delete_topics/"+topic) || strings.Contains(tree, "/config/topics/"+topic) {
		t.Fatalf("znodes of the deleted topic remain:\n%s", tree)
	}
	if _, err := os.Stat(c.Brokers()[0].DataDir()); err != nil {
		t.Fatal(err)
	}
}
