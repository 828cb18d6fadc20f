package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestClusterReplicatesAndShowsZooKeeperTree: three brokers on a real
// ZooKeeper replicate an RF=3 topic; the znode tree is Kafka's.
func TestClusterReplicatesAndShowsZooKeeperTree(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, 3, 3, map[string]*string{"min.insync.replicas": kgoStr("2")}, "replicated"); err != nil {
		t.Fatal(err)
	}
	prod := c.Client(kgo.DefaultProduceTopic("replicated"), kgo.RequiredAcks(kgo.AllISRAcks()))
	for i := 0; i < 1000; i++ {
		if err := prod.ProduceSync(ctx, &kgo.Record{Key: []byte(fmt.Sprint(i % 10)), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	// Every replica reaches the leader's end offset.
	testwait.For(t, 30*time.Second, "all replicas in sync", func() (bool, string) {
		md, err := adm.Metadata(ctx, "replicated")
		if err != nil {
			return false, err.Error()
		}
		for _, p := range md.Topics["replicated"].Partitions {
			if len(p.ISR) != 3 {
				return false, fmt.Sprintf("partition %d isr %v", p.Partition, p.ISR)
			}
		}
		return true, ""
	})
	tree := testcluster.ZooKeeperShell(t, c.ZK.Connect(), "ls", "-R", "/")
	for _, want := range []string{"/brokers/ids/1", "/brokers/ids/2", "/brokers/ids/3", "/brokers/topics/replicated/partitions/0/state", "/controller", "/controller_epoch", "/cluster/id", "/config/topics/replicated"} {
		if !strings.Contains(tree, want) {
			t.Fatalf("ZooKeeper tree lacks %s:\n%s", want, tree)
		}
	}
	state := testcluster.ZooKeeperShell(t, c.ZK.Connect(), "get", "/brokers/topics/replicated/partitions/0/state")
	if !strings.Contains(state, `"isr":[`) || !strings.Contains(state, `"controller_epoch":`) {
		t.Fatalf("partition state: %s", state)
	}
}

func kgoStr(s string) *string { return &s }
