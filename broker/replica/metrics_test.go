package replica

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/metrics"
	"kafgo/internal/testing/testwait"
)

// topicCounts reads topic t's counters from reg.
func topicCounts(t *testing.T, reg *metrics.Registry) metrics.TopicCounts {
	t.Helper()
	ts, ok := reg.Topics.Lookup(tp0.Topic)
	if !ok {
		t.Fatal("no counters for the hosted topic")
	}
	return ts.Counts()
}

// TestTopicMetrics: appends count their records and bytes on the topic, a
// refused append counts as a failed produce (NOT_ENOUGH_REPLICAS is one to
// Kafka), reads count bytes out for consumers and replication bytes out
// for followers, and the counters go with the partition's deletion while
// the all-topics total keeps them.
func TestTopicMetrics(t *testing.T) {
	reg := metrics.New()
	m, _, _ := newManagerWith(t, 2, func(c *Config, _ *clock) { c.Metrics = reg })
	// The leader alone in the ISR: its appends are below the HW at once.
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1, 2}))
	b := batch(t, 10)
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: b}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	if c := topicCounts(t, reg); c.MessagesIn != 10 || c.BytesIn != uint64(len(b)) || c.TotalProduce != 1 || c.FailedProduce != 0 {
		t.Fatalf("after one append %+v", c)
	}
	// acks=all with the ISR (1) under min.insync.replicas (2).
	if r := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 3)}}); r[0].Err == nil {
		t.Fatal("acks=all below min ISR appended")
	}
	if c := topicCounts(t, reg); c.MessagesIn != 10 || c.TotalProduce != 2 || c.FailedProduce != 1 {
		t.Fatalf("after a refused append %+v", c)
	}

	consumer := m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}})[0]
	follower := followerFetch(m, 2, 0)
	if consumer.Bytes != int64(len(b)) || follower.Bytes != int64(len(b)) {
		t.Fatalf("consumer read %d, follower %d, of %d", consumer.Bytes, follower.Bytes, len(b))
	}
	if c := topicCounts(t, reg); c.BytesOut != uint64(len(b)) || c.ReplicationBytesOut != uint64(len(b)) || c.TotalFetch != 2 || c.FailedFetch != 0 {
		t.Fatalf("after reads %+v", c)
	}
	// Out of range is the client's error, not a failed fetch.
	if r := m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{TP: tp0, FetchOffset: 99, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}})[0]; r.Err == nil {
		t.Fatal("fetch past the end succeeded")
	}
	if c := topicCounts(t, reg); c.TotalFetch != 3 || c.FailedFetch != 0 {
		t.Fatalf("after an out-of-range read %+v", c)
	}

	stop := kmsg.NewPtrStopReplicaRequest()
	stop.Version, stop.ControllerEpoch = 3, 1
	st := kmsg.NewStopReplicaRequestTopic()
	st.Topic = tp0.Topic
	ps := kmsg.NewStopReplicaRequestTopicPartitionState()
	ps.Partition, ps.Delete = 0, true
	st.PartitionStates = append(st.PartitionStates, ps)
	stop.Topics = append(stop.Topics, st)
	m.HandleStopReplica(stop)
	if _, ok := reg.Topics.Lookup(tp0.Topic); ok {
		t.Fatal("counters of a deleted partition's topic kept")
	}
	if _, total := reg.Topics.Snapshot(); total.MessagesIn != 10 || total.BytesOut != uint64(len(b)) {
		t.Fatalf("total after deletion %+v", total)
	}
}

// TestISRChangeMetrics: an ISR shrink and an expansion the controller
// accepted count once each; a refused proposal counts as a failed update.
func TestISRChangeMetrics(t *testing.T) {
	reg := metrics.New()
	m, ctl, clk := newManagerWith(t, 1, func(c *Config, _ *clock) { c.Metrics = reg })
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
	p, _ := m.Partition(tp0)
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 2)}})

	clk.add(11 * time.Second) // follower 2 never fetched: out of sync
	m.shrinkISRs()
	testwait.Until(t, 5*time.Second, "ISR shrunk", func() bool { return slices.Equal(p.State().ISR, []int32{1}) })
	if c := reg.Counters(); c.ISRShrinks != 1 || c.ISRExpands != 0 {
		t.Fatalf("after a shrink %+v", c)
	}
	followerFetch(m, 2, 2)
	testwait.Until(t, 5*time.Second, "ISR expanded", func() bool { return slices.Equal(p.State().ISR, []int32{1, 2}) })
	if c := reg.Counters(); c.ISRShrinks != 1 || c.ISRExpands != 1 || c.FailedISRUpdates != 0 {
		t.Fatalf("after an expansion %+v", c)
	}

	ctl.mu.Lock()
	ctl.refuse = true
	ctl.mu.Unlock()
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}) // the follower falls behind
	clk.add(11 * time.Second)
	m.shrinkISRs()
	testwait.Until(t, 5*time.Second, "refused update counted", func() bool { return reg.Counters().FailedISRUpdates == 1 })
	if c := reg.Counters(); c.ISRShrinks != 1 || !slices.Equal(p.State().ISR, []int32{1, 2}) {
		t.Fatalf("after a refused shrink %+v, ISR %v", c, p.State().ISR)
	}
}
