package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	"kafgo/broker/metrics"
	"kafgo/broker/topicadmin"
	"kafgo/internal/testing/testwait"
)

// TestControllerStats: the KafkaController gauges come from the active
// controller only (zero elsewhere) and follow the cluster: partitions
// whose preferred replica died are imbalanced, a partition with no live
// in-sync replica is offline, and a broker change times a leader election
// run; an unclean election is counted.
func TestControllerStats(t *testing.T) {
	h := newHarness(t)
	regs := map[int32]*metrics.Registry{}
	start := func(id int32) {
		if regs[id] == nil {
			regs[id] = metrics.New()
		}
		h.startBroker(id, func(c *Config) {
			c.Metrics = regs[id]
			c.UncleanLeaderElection = func(topic string) bool { return topic == "u" }
		})
	}
	for _, id := range []int32{1, 2, 3} {
		start(id)
	}
	ctl := h.active()
	var others []int32
	for _, id := range []int32{1, 2, 3} {
		if id != ctl.id {
			others = append(others, id)
		}
	}
	o1, o2 := others[0], others[1]
	admin := &topicadmin.Admin{Store: h.root}
	ctx := context.Background()
	if _, err := admin.CreateTopic(ctx, topicadmin.TopicSpec{Name: "t", Assignment: map[int32][]int32{0: {ctl.id, o1}, 1: {o1, o2}, 2: {o2, ctl.id}}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateTopic(ctx, topicadmin.TopicSpec{Name: "u", Assignment: map[int32][]int32{0: {o1, o2}}}, false); err != nil {
		t.Fatal(err)
	}
	stats := func() Stats { return ctl.ctl.Stats(ctx) }
	testwait.Until(t, 10*time.Second, "both topics online", func() bool {
		s := stats()
		return s.GlobalTopics == 2 && s.GlobalPartitions == 4 && s.OfflinePartitions == 0
	})
	if s := stats(); s != (Stats{Active: true, GlobalTopics: 2, GlobalPartitions: 4}) {
		t.Fatalf("initial %+v", s)
	}
	for _, id := range others {
		if s := h.nodes[id].ctl.Stats(ctx); s != (Stats{}) {
			t.Fatalf("broker %d, not the controller, reports %+v", id, s)
		}
	}
	elections := regs[ctl.id].LeaderElection.Count()

	// o1 dies: t-1 and u-0 move to o2, off their preferred replica.
	h.crash(o1)
	testwait.Until(t, 10*time.Second, "leaders off the dead broker, imbalance seen", func() bool {
		return stats().PreferredReplicaImbalance == 2
	})
	if s := stats(); s.OfflinePartitions != 0 {
		t.Fatalf("after one failure %+v", s)
	}
	if regs[ctl.id].LeaderElection.Count() <= elections {
		t.Fatal("the broker change was not timed as a leader election run")
	}
	for _, id := range others {
		if n := regs[id].LeaderElection.Count(); n != 0 {
			t.Fatalf("broker %d, not the controller, timed %d elections", id, n)
		}
	}

	// o1 returns (outside every ISR: no leader here fetches to add it),
	// then o2 dies: t-1 has no live in-sync replica and stays offline;
	// u-0 allows unclean election and goes to o1.
	start(o1)
	testwait.Until(t, 10*time.Second, "the controller sees o1 back", func() bool {
		return slices.Contains(liveIDs(t, ctl), o1)
	})
	h.crash(o2)
	testwait.Until(t, 10*time.Second, "t-1 offline", func() bool { return stats().OfflinePartitions == 1 })
	if n := regs[ctl.id].Counters().UncleanElections; n != 1 {
		t.Fatalf("%d unclean elections counted, want 1", n)
	}
	if st := h.state(tp{Topic: "u", Partition: 0}); st.Leader != o1 {
		t.Fatalf("u-0 led by %d, want %d (unclean)", st.Leader, o1)
	}
}

// liveIDs reads the controller's live brokers on its event goroutine.
func liveIDs(t *testing.T, n *node) []int32 {
	t.Helper()
	ids, err := call(context.Background(), n.ctl, func() ([]int32, error) {
		if n.ctl.st == nil {
			return nil, nil
		}
		return n.ctl.st.liveIDs(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
