package replica

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"kafgo/broker/clusterview"
)

// TestWaitsWakeOnChangeBetweenCheckAndWait: each delayed operation (a
// long-polling fetch, an acks=all produce, a DeleteRecords) finds its
// condition unmet, and the change that meets it lands before the operation
// starts to wait (the hook runs exactly there). The operation must answer
// at once instead of sleeping out its timeout (a minute here; the test
// gives up long before).
func TestWaitsWakeOnChangeBetweenCheckAndWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run sets up the partition and returns the change to make
		// between check and wait, and the operation, which reports
		// whether it answered as it should.
		run func(t *testing.T, m *Manager) (change func(), op func() string)
	}{
		{"fetch", func(t *testing.T, m *Manager) (func(), func() string) {
			m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
			return func() {
					if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
						t.Error(r[0].Err)
					}
				}, func() string {
					r := m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: time.Minute, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
						TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1,
					}}})[0]
					if r.Err != nil || r.Bytes == 0 {
						return "no record fetched"
					}
					return ""
				}
		}},
		{"follower fetch", func(t *testing.T, m *Manager) (func(), func() string) {
			// The follower is level with the leader and waits for data:
			// an append wakes it though the HW does not move.
			m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
			return func() {
					if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
						t.Error(r[0].Err)
					}
				}, func() string {
					r := m.Fetch(context.Background(), FetchRequest{ReplicaID: 2, MaxWait: time.Minute, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
						TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: 0,
					}}})[0]
					if r.Err != nil || r.Bytes == 0 {
						return "no record fetched"
					}
					return ""
				}
		}},
		{"acks=all", func(t *testing.T, m *Manager) (func(), func() string) {
			m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
			res := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}})
			if res[0].Err != nil {
				t.Fatal(res[0].Err)
			}
			return func() { followerFetch(m, 2, 1) }, func() string {
				m.WaitForAcks(context.Background(), time.Minute, res)
				if res[0].Err != nil {
					return res[0].Err.Error()
				}
				return ""
			}
		}},
		{"DeleteRecords", func(t *testing.T, m *Manager) (func(), func() string) {
			// Follower 2 is live, so the low watermark waits for it.
			m.cfg.Cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1, Brokers: []clusterview.Broker{{ID: 1}, {ID: 2}}})
			m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
			if res := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 4)}}); res[0].Err != nil {
				t.Fatal(res[0].Err)
			}
			followerFetchFrom(m, 2, 4, 0)
			return func() { followerFetchFrom(m, 2, 4, 2) }, func() string {
				r := m.DeleteRecords(context.Background(), time.Minute, []DeleteRecordsPartition{{TP: tp0, Offset: 2}})[0]
				if r.Err != nil || r.LowWatermark != 2 {
					return "low watermark not reached"
				}
				return ""
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newManager(t, 1)
			change, op := tc.run(t, m)
			var once sync.Once
			changed := make(chan struct{})
			m.beforeWait = func() { once.Do(func() { change(); close(changed) }) }
			done := make(chan string, 1)
			go func() { done <- op() }()
			select {
			case msg := <-done:
				if msg != "" {
					t.Fatal(msg)
				}
				select {
				case <-changed:
				default:
					t.Fatal("answered without waiting: the test did not exercise the wait")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("slept through a change made between its check and its wait")
			}
		})
	}
}

// TestHWWaitersSleepThroughAppends: an acks=all produce and a consumer's
// fetch wait for the HW, so appends that do not move it (a follower has not
// fetched them) do not wake them; the follower's fetch that moves the HW
// does, and both answer. It runs in a synctest bubble: synctest.Wait
// returns once every goroutine is blocked again, so a waiter an append
// woke has come back to its wait (and counted it) before the count is read.
func TestHWWaitersSleepThroughAppends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _, _ := newManager(t, 1)
		m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
		followerFetch(m, 2, 0) // the follower is known, at offset 0
		res := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}})
		if res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
		var waits atomic.Int64
		m.beforeWait = func() { waits.Add(1) }
		acked := make(chan error, 1)
		go func() {
			m.WaitForAcks(context.Background(), time.Minute, res)
			acked <- res[0].Err
		}()
		fetched := make(chan FetchResult, 1)
		go func() {
			fetched <- m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: time.Minute, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
				TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1,
			}}})[0]
		}()
		synctest.Wait()
		if n := waits.Load(); n != 2 {
			t.Fatalf("%d waits once both requests are blocked, want 2", n)
		}
		for range 10 {
			if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
				t.Fatal(r[0].Err)
			}
			synctest.Wait() // a woken waiter is back in its wait
		}
		if n := waits.Load(); n != 2 {
			t.Errorf("appends that left the HW alone woke the HW waiters: %d waits for 2 waiters", n)
		}
		followerFetch(m, 2, 11)
		synctest.Wait()
		select {
		case err := <-acked:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("acks=all not woken by the HW move")
		}
		select {
		case r := <-fetched:
			if r.Err != nil || r.Bytes == 0 {
				t.Fatalf("consumer fetch: %v, %d bytes", r.Err, r.Bytes)
			}
		default:
			t.Fatal("consumer fetch not woken by the HW move")
		}
	})
}
