package replica

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestDelayedFetchCountsBytesWithoutReading: a consumer's fetch with
// fetch.min.bytes of three batches waits through the first two appends
// without reading the log again (the bytes are counted from positions) and
// answers with all three batches on the third, after exactly two reads:
// the first and the one that completes it. Before, every HW move re-read
// every partition of every waiting fetch.
func TestDelayedFetchCountsBytesWithoutReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _, _ := newManager(t, 1)
		m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
		size := int32(len(batch(t, 1)))
		var reads atomic.Int64
		m.afterRead = func() { reads.Add(1) }
		got := make(chan FetchResult, 1)
		go func() {
			got <- m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: time.Minute, MinBytes: 3 * size, MaxBytes: 1 << 20,
				Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1}}})[0]
		}()
		synctest.Wait()
		for i := range 2 {
			if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
				t.Fatal(r[0].Err)
			}
			synctest.Wait()
			select {
			case r := <-got:
				t.Fatalf("answered after %d of 3 batches with %d bytes", i+1, r.Bytes)
			default:
			}
		}
		if n := reads.Load(); n != 1 {
			t.Fatalf("%d reads while waiting, want only the first", n)
		}
		if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
			t.Fatal(r[0].Err)
		}
		r := <-got
		if r.Err != nil || r.Bytes != int64(3*size) {
			t.Fatalf("fetch: %v, %d bytes, want %d", r.Err, r.Bytes, 3*size)
		}
		if n := reads.Load(); n != 2 {
			t.Fatalf("%d reads, want 2 (the first and the completing one)", n)
		}
	})
}

// TestDelayedFetchTimesOutWithWhatIsThere: fewer than min.bytes arrive;
// at fetch.max.wait the fetch answers with what there is.
func TestDelayedFetchTimesOutWithWhatIsThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _, _ := newManager(t, 1)
		m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
		got := make(chan FetchResult, 1)
		start := time.Now()
		go func() {
			got <- m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: 500 * time.Millisecond, MinBytes: 1 << 20, MaxBytes: 1 << 20,
				Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1}}})[0]
		}()
		synctest.Wait()
		if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 2)}}); r[0].Err != nil {
			t.Fatal(r[0].Err)
		}
		r := <-got
		if r.Err != nil || r.Bytes == 0 {
			t.Fatalf("fetch: %v, %d bytes", r.Err, r.Bytes)
		}
		if d := time.Since(start); d != 500*time.Millisecond {
			t.Fatalf("answered after %v, want fetch.max.wait (500ms)", d)
		}
	})
}

// TestDelayedFetchCompletesOnLeadershipChange: a waiting fetch whose
// partition loses its leader here answers at once, with the error, rather
// than at fetch.max.wait.
func TestDelayedFetchCompletesOnLeadershipChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _, _ := newManager(t, 1)
		m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
		got := make(chan FetchResult, 1)
		go func() {
			got <- m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: time.Minute, MinBytes: 1 << 20, MaxBytes: 1 << 20,
				Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1}}})[0]
		}()
		synctest.Wait()
		m.HandleLeaderAndISR(leaderAndISR(2, 1, []int32{1, 2}, []int32{1, 2}))
		r := <-got
		if r.Err == nil {
			t.Fatal("fetch from a former leader answered without error")
		}
	})
}
