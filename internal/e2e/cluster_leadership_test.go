package e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// ledBy maps each partition of topic to its current leader.
func ledBy(t *testing.T, ctx context.Context, cl *kgo.Client, topic string) map[int32]int32 {
	t.Helper()
	var parts map[int32]testcluster.PartitionState
	testwait.For(t, 10*time.Second, "metadata for "+topic, func() (bool, string) {
		var err error
		parts, err = testcluster.Partitions(ctx, cl, topic)
		return err == nil, fmt.Sprint(err)
	})
	out := map[int32]int32{}
	for p, st := range parts {
		out[p] = st.Leader
	}
	return out
}

// TestControlledShutdownMovesLeadershipFirst: SIGTERM makes the broker
// hand its leaderships to other in-sync replicas before it exits, so when
// the process is gone no partition names it as leader.
func TestControlledShutdownMovesLeadershipFirst(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	const topic = "graceful"
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 6, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, 6)
	victim := c.Broker(2)
	led := 0
	for _, l := range ledBy(t, ctx, cl, topic) {
		if l == victim.ID {
			led++
		}
	}
	if led == 0 {
		t.Fatal("broker 2 leads nothing; the placement should spread leaders")
	}
	victim.Stop()
	for p, l := range ledBy(t, ctx, cl, topic) {
		if l == victim.ID || l < 0 {
			t.Fatalf("after controlled shutdown partition %d has leader %d", p, l)
		}
	}
	if log := victim.LogTail(400); !strings.Contains(log, "controlled shutdown complete") {
		t.Fatalf("broker log does not show a completed controlled shutdown:\n%s", log)
	}
	t.Logf("broker %d handed over %d leaderships before exiting", victim.ID, led)
}

// TestPreferredLeaderElection: after a broker comes back, its preferred
// leaderships return through ElectLeaders, and by themselves when
// auto.leader.rebalance.enable checks the imbalance.
func TestPreferredLeaderElection(t *testing.T) {
	c, cl, ctx := startCluster3(t, map[string]string{
		"auto.leader.rebalance.enable":            "true",
		"leader.imbalance.check.interval.seconds": "3",
	})
	adm := kadm.NewClient(cl)
	const topic = "prefer"
	if _, err := adm.CreateTopic(ctx, 6, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, 6)
	details, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	preferred := map[int32]int32{}
	for _, p := range details[topic].Partitions {
		preferred[p.Partition] = p.Replicas[0]
	}
	moved := func() []string {
		var out []string
		for p, l := range ledBy(t, ctx, cl, topic) {
			if l != preferred[p] {
				out = append(out, fmt.Sprintf("p%d led by %d, prefers %d", p, l, preferred[p]))
			}
		}
		return out
	}
	c.Broker(1).Stop()
	c.Broker(1).Start()
	waitFullISR(t, ctx, cl, topic, 6)
	// Explicit election (kafka-leader-election --election-type PREFERRED).
	if m := moved(); len(m) > 0 {
		res, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: nil})
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range res {
			for _, r := range ps {
				if r.Err != nil && !strings.Contains(r.Err.Error(), "ELECTION_NOT_NEEDED") {
					t.Fatalf("elect %s-%d: %v", r.Topic, r.Partition, r.Err)
				}
			}
		}
		testwait.For(t, 30*time.Second, "preferred leaders after ElectLeaders", func() (bool, string) {
			m := moved()
			return len(m) == 0, strings.Join(m, "; ")
		})
	}
	// Automatic: bounce broker 2, wait for the rebalance check.
	c.Broker(2).Stop()
	c.Broker(2).Start()
	waitFullISR(t, ctx, cl, topic, 6)
	testwait.For(t, 60*time.Second, "auto leader rebalance", func() (bool, string) {
		m := moved()
		return len(m) == 0, strings.Join(m, "; ")
	})
}

// TestFollowerRestartRejoins: a follower killed -9 and restarted after
// the leader moved on truncates to the leader's epochs and rejoins the ISR
// with an identical log.
func TestFollowerRestartRejoins(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	const topic = "rejoin"
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, 1)
	prod := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.AllISRAcks()))
	produceN(t, ctx, prod, topic, 0, 200)
	leader := mustLeader(t, ctx, cl, topic)
	var follower *testcluster.Broker
	for _, b := range c.Brokers() {
		if b.ID != leader {
			follower = b
			break
		}
	}
	follower.Kill()
	produceN(t, ctx, prod, topic, 200, 300)
	follower.Start()
	waitFullISR(t, ctx, cl, topic, 1)
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	hw := ends[topic][0].Offset
	if hw != 500 {
		t.Fatalf("HW %d, want 500", hw)
	}
	for _, b := range c.Brokers() {
		b.Stop()
	}
	ref := logBelow(t, filepath.Join(c.Broker(leader).DataDir(), topic+"-0"), hw)
	if got := logBelow(t, filepath.Join(follower.DataDir(), topic+"-0"), hw); !bytes.Equal(ref, got) {
		t.Fatalf("rejoined follower's log differs from the leader's below HW %d", hw)
	}
}
