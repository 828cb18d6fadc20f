package replica

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/clusterview"
	"kafgo/internal/testing/testwait"
)

// followerFetchFrom is a follower fetch that reports the follower's log
// start offset.
func followerFetchFrom(m *Manager, id int32, offset, logStart int64) FetchResult {
	return m.Fetch(context.Background(), FetchRequest{ReplicaID: id, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: tp0, FetchOffset: offset, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: logStart,
	}}})[0]
}

// TestDeleteRecordsWaitsForLiveFollowers: the answer comes once every
// follower on a live broker reports the new log start offset; one on a
// broker the metadata no longer lists does not hold it back; and a
// follower that never follows leaves the request to time out with the low
// watermark reached so far.
func TestDeleteRecordsWaitsForLiveFollowers(t *testing.T) {
	var cache *clusterview.Cache
	m, _, _ := newManagerWith(t, 1, func(c *Config, _ *clock) { cache = c.Cache })
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1, Brokers: []clusterview.Broker{{ID: 1}, {ID: 2}, {ID: 3}}})
	if code := m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2, 3}, []int32{1, 2, 3})).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("LeaderAndIsr: %v", kerr.ErrorForCode(code))
	}
	if res := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 10)}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	followerFetchFrom(m, 2, 10, 0)
	followerFetchFrom(m, 3, 10, 0)
	p, _ := m.Partition(tp0)
	if hw := p.HighWatermark(); hw != 10 {
		t.Fatalf("HW %d, want 10", hw)
	}

	done := make(chan DeleteRecordsResult, 1)
	go func() {
		done <- m.DeleteRecords(context.Background(), time.Minute, []DeleteRecordsPartition{{TP: tp0, Offset: 6}})[0]
	}()
	testwait.Until(t, 5*time.Second, "the leader's log start offset to move", func() bool { return p.log.LogStartOffset() == 6 })
	followerFetchFrom(m, 2, 10, 6)
	select {
	case r := <-done:
		t.Fatalf("answered %+v while follower 3 still starts at 0", r)
	case <-time.After(50 * time.Millisecond):
	}
	followerFetchFrom(m, 3, 10, 6)
	select {
	case r := <-done:
		if r.Err != nil || r.LowWatermark != 6 {
			t.Fatalf("result %+v, want low watermark 6", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after every follower followed")
	}

	// Broker 3 leaves the metadata: only the leader and follower 2 count.
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1, Brokers: []clusterview.Broker{{ID: 1}, {ID: 2}}})
	go func() {
		done <- m.DeleteRecords(context.Background(), time.Minute, []DeleteRecordsPartition{{TP: tp0, Offset: -1}})[0]
	}()
	testwait.Until(t, 5*time.Second, "the log start offset to reach the HW", func() bool { return p.log.LogStartOffset() == 10 })
	followerFetchFrom(m, 2, 10, 10)
	select {
	case r := <-done:
		if r.Err != nil || r.LowWatermark != 10 {
			t.Fatalf("result %+v, want low watermark 10", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a dead broker's replica held the answer back")
	}

	// A live follower that does not follow: REQUEST_TIMED_OUT, with the
	// low watermark it is stuck at.
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1, Brokers: []clusterview.Broker{{ID: 1}, {ID: 2}, {ID: 3}}})
	if res := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 5)}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	followerFetchFrom(m, 2, 15, 10)
	followerFetchFrom(m, 3, 15, 6)
	r := m.DeleteRecords(context.Background(), 100*time.Millisecond, []DeleteRecordsPartition{{TP: tp0, Offset: 12}})[0]
	if !errors.Is(r.Err, kerr.RequestTimedOut) || r.LowWatermark != 6 {
		t.Fatalf("result %+v, want REQUEST_TIMED_OUT at low watermark 6", r)
	}

	// Beyond the HW: OFFSET_OUT_OF_RANGE at once.
	if r := m.DeleteRecords(context.Background(), time.Minute, []DeleteRecordsPartition{{TP: tp0, Offset: 99}})[0]; !errors.Is(r.Err, kerr.OffsetOutOfRange) || r.LowWatermark != -1 {
		t.Fatalf("result %+v, want OFFSET_OUT_OF_RANGE", r)
	}
}
