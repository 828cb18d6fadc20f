package replica

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestFetchWakesOnAppendBetweenReadAndWait: a long-polling consumer fetch
// finds nothing, then a record is appended before the fetch starts to wait
// (the hook runs exactly there). The fetch must answer with that record
// instead of sleeping out its max wait (a minute here; the test gives up
// long before).
func TestFetchWakesOnAppendBetweenReadAndWait(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
	var once sync.Once
	m.beforeWait = func() {
		once.Do(func() {
			if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
				t.Error(r[0].Err)
			}
		})
	}
	done := make(chan FetchResult, 1)
	go func() {
		done <- m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxWait: time.Minute, MinBytes: 1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
			TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: -1,
		}}})[0]
	}()
	select {
	case r := <-done:
		if r.Err != nil || r.Bytes == 0 {
			t.Fatalf("fetch answered %+v, want the appended record", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fetch slept through a record appended between its read and its wait")
	}
}
