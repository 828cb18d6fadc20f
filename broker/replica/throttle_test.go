package replica

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/quota"
	"kafgo/broker/storage"
)

// throttledTopic is the topic the throttle tests throttle; others are not.
const throttledTopic = "t"

// newThrottledManager builds a manager whose topic "t" is throttled on both
// sides and whose quotas allow 100 B/s over Kafka's default window (11 x 1 s)
// on the manager's clock.
func newThrottledManager(t *testing.T) *Manager {
	t.Helper()
	m, _, _ := newManagerWith(t, 1, func(c *Config, clk *clock) {
		c.ConfigFor = func(topic string) PartitionConfig {
			pc := PartitionConfig{Log: storage.DefaultLogConfig(), MinInsyncReplicas: 1, MaxMessageBytes: 1 << 20}
			if topic == throttledTopic {
				pc.LeaderThrottled, pc.FollowerThrottled = quota.AllReplicas, quota.AllReplicas
			}
			return pc
		}
		c.LeaderQuota = quota.New(quota.Config{Samples: 11, Window: time.Second, Limit: 100, Clock: clk.now})
		c.FollowerQuota = quota.New(quota.Config{Samples: 11, Window: time.Second, Limit: 100, Clock: clk.now})
		c.FetchBackoff = 50 * time.Millisecond
	})
	return m
}

// TestLeaderThrottle: a follower outside the ISR gets no records from a
// leader-throttled partition while the leader quota is exceeded (error
// NONE, offsets as usual); an in-sync follower always does; the bytes sent
// for the partition, to either, are counted.
func TestLeaderThrottle(t *testing.T) {
	m := newThrottledManager(t)
	leaderQ, _ := m.Quotas()
	// Replica 3 is being added: assigned, not in the ISR.
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2, 3}))
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 300)}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	p, _ := m.Partition(tp0)
	// The ISR follower is level: the HW is past the new replica, which
	// therefore stays outside the ISR while it fetches from 0.
	if r := followerFetch(m, 2, 300); r.Err != nil || r.Bytes != 0 || p.HighWatermark() != 300 {
		t.Fatalf("ISR follower at the LEO: %+v, HW %d", r, p.HighWatermark())
	}

	// Under the quota: the new replica gets the records, which are counted.
	first := followerFetch(m, 3, 0)
	if first.Err != nil || first.Bytes == 0 {
		t.Fatalf("first fetch of the new replica: %+v", first)
	}
	if st := leaderQ.Stats(); st.RecordedBytes != first.Bytes || !st.Exceeded {
		t.Fatalf("after %d bytes over 100 B/s: %+v", first.Bytes, st)
	}
	// Over the quota: nothing, but a normal answer.
	held := followerFetch(m, 3, 0)
	if held.Err != nil || held.Bytes != 0 || len(held.Regions) != 0 || held.HighWatermark != p.HighWatermark() || held.LogStartOffset != 0 {
		t.Fatalf("throttled fetch: %+v", held)
	}
	// An ISR member is never held back; its bytes count too.
	isr := followerFetch(m, 2, 0)
	if isr.Err != nil || isr.Bytes != first.Bytes {
		t.Fatalf("in-sync follower fetch while throttling: %+v", isr)
	}
	// Consumers are not throttled nor counted.
	cons := m.Fetch(t.Context(), FetchRequest{ReplicaID: -1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}})[0]
	if cons.Err != nil {
		t.Fatal(cons.Err)
	}
	if st := leaderQ.Stats(); st.RecordedBytes != 2*first.Bytes || st.HeldBack != 1 {
		t.Fatalf("leader quota after the ISR fetch: %+v", st)
	}
	// Raising the limit at run time lets the new replica through at once.
	leaderQ.SetLimit(quota.Unlimited)
	if r := followerFetch(m, 3, 0); r.Bytes != first.Bytes {
		t.Fatalf("fetch after lifting the throttle: %+v", r)
	}
}

// TestLeaderThrottleOnlyThrottledPartitions: a partition the topic config
// does not list is served and not counted, even over the quota.
func TestLeaderThrottleOnlyThrottledPartitions(t *testing.T) {
	m := newThrottledManager(t)
	leaderQ, _ := m.Quotas()
	leaderQ.Record(1 << 20)
	free := partid.TopicPartition{Topic: "free", Partition: 0}
	req := leaderAndISR(1, 0, []int32{1}, []int32{1, 3})
	req.TopicStates[0].Topic = free.Topic
	m.HandleLeaderAndISR(req)
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: free, Batches: batch(t, 10)}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	r := m.Fetch(t.Context(), FetchRequest{ReplicaID: 3, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: free, FetchOffset: 0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1,
	}}})[0]
	if r.Err != nil || r.Bytes == 0 {
		t.Fatalf("unthrottled partition: %+v", r)
	}
	if st := leaderQ.Stats(); st.RecordedBytes != 1<<20 || st.HeldBack != 0 {
		t.Fatalf("unthrottled bytes counted: %+v", st)
	}
}

// TestFollowerThrottle: the fetcher leaves a follower-throttled replica
// that is not in sync out of its fetch while the follower quota is
// exceeded, backing off replica.fetch.backoff.ms when nothing is left;
// in-sync replicas and other partitions are fetched; received bytes of
// throttled replicas are counted and the answer's HW decides "in sync".
func TestFollowerThrottle(t *testing.T) {
	m := newThrottledManager(t)
	_, followerQ := m.Quotas()
	slow, err := m.getOrCreatePartition(tp0, [16]byte{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	freeTP := partid.TopicPartition{Topic: "free", Partition: 0}
	free, err := m.getOrCreatePartition(freeTP, [16]byte{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A fetcher that is never run: plan and apply are exercised directly.
	f := newFetcher(m.fetchers, fetcherKey{leader: 2})
	f.parts[tp0] = &fetchState{p: slow}
	planned := func() ([]partid.TopicPartition, time.Duration) {
		_, _, fetches, wake := f.plan(m.now())
		var tps []partid.TopicPartition
		for _, st := range fetches {
			tps = append(tps, st.p.tp)
		}
		return tps, wake
	}

	if tps, _ := planned(); len(tps) != 1 {
		t.Fatalf("under the quota, planned %v", tps)
	}
	// Received bytes count, and an answer whose HW is beyond our LEO leaves
	// the replica out of sync.
	data := batch(t, 200)
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.RecordBatches, rp.HighWatermark = data, 1000
	f.mu.Lock()
	f.applyFetchedLocked(f.parts[tp0], &rp)
	inSync := f.parts[tp0].inSync
	f.mu.Unlock()
	if got := followerQ.Stats().RecordedBytes; got != int64(len(data)) || inSync || slow.Log().LogEndOffset() != 200 {
		t.Fatalf("after applying %d bytes: recorded %d, in sync %v, LEO %d", len(data), got, inSync, slow.Log().LogEndOffset())
	}
	if !followerQ.IsExceeded() {
		t.Fatalf("%d bytes over a 100 B/s quota not exceeded", len(data))
	}
	// Over the quota, out of sync: left out; with nothing else to fetch
	// the fetcher waits the back-off, not its default second.
	tps, wake := planned()
	if len(tps) != 0 || wake != 50*time.Millisecond || followerQ.Stats().HeldBack != 1 {
		t.Fatalf("over the quota: planned %v, wake %v, stats %+v", tps, wake, followerQ.Stats())
	}
	// Other partitions are still fetched.
	f.parts[freeTP] = &fetchState{p: free}
	if tps, _ := planned(); len(tps) != 1 || tps[0] != freeTP {
		t.Fatalf("with an unthrottled partition: planned %v", tps)
	}
	delete(f.parts, freeTP)
	// Once an answer shows it caught up with the HW, it is never throttled.
	rp = kmsg.NewFetchResponseTopicPartition()
	rp.HighWatermark = 200
	f.mu.Lock()
	f.applyFetchedLocked(f.parts[tp0], &rp)
	f.mu.Unlock()
	if tps, _ := planned(); len(tps) != 1 || tps[0] != tp0 {
		t.Fatalf("in sync over the quota: planned %v", tps)
	}
	// A dynamic rate change applies to the next plan.
	f.parts[tp0].inSync = false
	followerQ.SetLimit(quota.Unlimited)
	if tps, _ := planned(); len(tps) != 1 {
		t.Fatalf("after lifting the throttle: planned %v", tps)
	}
}
