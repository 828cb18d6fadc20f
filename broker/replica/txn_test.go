package replica

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/storage"
)

func txnBatch(t *testing.T, pid int64, seq int32, n int) []byte {
	t.Helper()
	b := record.NewBuilder(0, record.CodecNone)
	b.SetProducer(pid, 0, seq)
	b.SetTransactional(true)
	for i := 0; i < n; i++ {
		b.Append(1_700_000_000_000, nil, []byte("t"), nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func consumerFetch(m *Manager, readCommitted bool, offset int64, minBytes int32, wait time.Duration) FetchResult {
	return m.Fetch(context.Background(), FetchRequest{
		ReplicaID: -1, MaxBytes: 1 << 20, MinBytes: minBytes, MaxWait: wait, ReadCommitted: readCommitted,
		Partitions: []FetchPartition{{TP: tp0, FetchOffset: offset, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}},
	})[0]
}

// TestReadCommittedFetchAndMarkers: a read_committed consumer reads up to
// the LSO, waits in a long poll while a transaction is open, is woken when
// the ABORT marker is replicated (the LSO moves with the HW), and gets the
// aborted transaction with the records; ListOffsets latest follows the
// isolation level; markers wait for the ISR like acks=all.
func TestReadCommittedFetchAndMarkers(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
	p, _ := m.Partition(tp0)
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: txnBatch(t, 5, 0, 2)}}); r[0].Err != nil { // 0-1
		t.Fatal(r[0].Err)
	}
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 2)}}); r[0].Err != nil { // 2-3
		t.Fatal(r[0].Err)
	}
	followerFetch(m, 2, 4)
	if hw, lso := p.HighWatermark(), p.LastStableOffset(); hw != 4 || lso != 0 {
		t.Fatalf("HW %d LSO %d, want 4 and 0 (open transaction)", hw, lso)
	}
	if r := consumerFetch(m, false, 0, 0, 0); r.Bytes == 0 || r.LastStableOffset != 0 || r.HighWatermark != 4 || r.AbortedTransactions != nil {
		t.Fatalf("read_uncommitted: %+v", r)
	}
	if r := consumerFetch(m, true, 0, 0, 0); r.Bytes != 0 || r.LastStableOffset != 0 {
		t.Fatalf("read_committed read past the LSO: %+v", r)
	}
	for _, tc := range []struct {
		committed bool
		want      int64
	}{{false, 4}, {true, 0}} {
		if off, _, _, err := p.ListOffset(-1, LatestTimestamp, false, tc.committed); err != nil || off != tc.want {
			t.Fatalf("ListOffsets latest (read_committed %v) = %d %v, want %d", tc.committed, off, err, tc.want)
		}
	}

	woken := make(chan FetchResult, 1)
	go func() { woken <- consumerFetch(m, true, 0, 1, 20*time.Second) }()
	select {
	case r := <-woken:
		t.Fatalf("read_committed long poll answered with the transaction open: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}

	res := m.AppendTxnMarkers([]TxnMarker{{TP: tp0, ProducerID: 5, ProducerEpoch: 0, CoordinatorEpoch: 3, Commit: false}})
	if res[0].Err != nil || res[0].Info.FirstOffset != 4 {
		t.Fatalf("marker: %+v", res[0])
	}
	acked := make(chan struct{})
	go func() {
		m.WaitForAcks(context.Background(), 20*time.Second, res)
		close(acked)
	}()
	select {
	case <-acked:
		t.Fatal("marker acknowledged before the follower had it")
	case r := <-woken:
		t.Fatalf("read_committed fetch answered before the marker was replicated: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	followerFetch(m, 2, 5)
	select {
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatal("marker not acknowledged after replication")
	}
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	var r FetchResult
	select {
	case r = <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("read_committed long poll not woken by the LSO moving")
	}
	if r.LastStableOffset != 5 || r.Bytes == 0 || len(r.AbortedTransactions) != 1 ||
		r.AbortedTransactions[0].ProducerID != 5 || r.AbortedTransactions[0].FirstOffset != 0 {
		t.Fatalf("read_committed after the abort: LSO %d bytes %d aborted %+v", r.LastStableOffset, r.Bytes, r.AbortedTransactions)
	}
	if off, _, _, _ := p.ListOffset(-1, LatestTimestamp, false, true); off != 5 {
		t.Fatalf("ListOffsets latest read_committed after the abort: %d", off)
	}

	// Fencing and placement errors.
	res = m.AppendTxnMarkers([]TxnMarker{
		{TP: tp0, ProducerID: 5, ProducerEpoch: 0, CoordinatorEpoch: 2, Commit: true},
		{TP: tp0, ProducerID: 5, ProducerEpoch: -1, CoordinatorEpoch: 9, Commit: true},
		{TP: partid.TopicPartition{Topic: "nope", Partition: 0}, ProducerID: 5, CoordinatorEpoch: 9},
	})
	if !errors.Is(res[0].Err, storage.ErrCoordinatorFenced) {
		t.Fatalf("marker from an older coordinator: %v", res[0].Err)
	}
	if !errors.Is(res[1].Err, storage.ErrInvalidProducerEpoch) {
		t.Fatalf("marker at an older producer epoch: %v", res[1].Err)
	}
	if !errors.Is(res[2].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("marker for a partition not hosted here: %v", res[2].Err)
	}
	m.HandleLeaderAndISR(leaderAndISR(2, 1, []int32{1, 2}, []int32{1, 2}))
	res = m.AppendTxnMarkers([]TxnMarker{{TP: tp0, ProducerID: 5, CoordinatorEpoch: 9}})
	if !errors.Is(res[0].Err, kerr.NotLeaderForPartition) {
		t.Fatalf("marker on a follower: %v", res[0].Err)
	}
}
