package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// txn is a transactional batch of pid at epoch pepoch, sequences from seq.
func txn(pid int64, pepoch int16, seq int32, records int) tbatch {
	b := idem(pid, pepoch, seq, records)
	b.attrs |= record.AttrTransactional
	return b
}

func mustMarker(t testing.TB, l *Log, pid int64, pepoch int16, commit bool, coordEpoch int32) AppendInfo {
	t.Helper()
	info, err := l.AppendEndTxnMarker(pid, pepoch, coordEpoch, commit, 0, false)
	if err != nil {
		t.Fatalf("marker for %d: %v", pid, err)
	}
	return info
}

// lsoAtEnd publishes the log end as the high watermark and returns the LSO.
func lsoAtEnd(l *Log) int64 {
	hw := l.LogEndOffset()
	l.SetHighWatermark(hw)
	return l.LastStableOffset(hw)
}

func activeTxnIndex(t testing.TB, l *Log) []AbortedTxn {
	t.Helper()
	var all []AbortedTxn
	for _, s := range l.segments() {
		es, err := s.txnIdx.entries()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
	}
	return all
}

func TestTxnIndexFileFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "00000000000000000100.txnindex")
	x, err := openTxnIndex(vfs.Default, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an index without entries must not have a file: %v", err)
	}
	es := []AbortedTxn{
		{ProducerID: 7, FirstOffset: 90, LastOffset: 105, LastStableOffset: 100},
		{ProducerID: 0x0102030405060708, FirstOffset: 106, LastOffset: 110, LastStableOffset: 111},
	}
	if err := x.append(es); err != nil {
		t.Fatal(err)
	}
	if err := x.append([]AbortedTxn{{ProducerID: 1, FirstOffset: 100, LastOffset: 110, LastStableOffset: 111}}); err == nil {
		t.Fatal("an entry whose marker does not follow the last one was accepted")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Kafka's AbortedTxn: version int16, then four int64, big-endian.
	want := binary.BigEndian.AppendUint16(nil, 0)
	for _, v := range []uint64{7, 90, 105, 100} {
		want = binary.BigEndian.AppendUint64(want, v)
	}
	want = binary.BigEndian.AppendUint16(want, 0)
	for _, v := range []uint64{0x0102030405060708, 106, 110, 111} {
		want = binary.BigEndian.AppendUint64(want, v)
	}
	if !bytes.Equal(raw, want) {
		t.Fatalf("file bytes\n got %x\nwant %x", raw, want)
	}
	got, err := ReadTxnIndex(path)
	if err != nil || !slices.Equal(got, es) {
		t.Fatalf("ReadTxnIndex = %+v, %v", got, err)
	}
	if err := x.sanityCheck(100, 200); err != nil {
		t.Fatalf("sanity check: %v", err)
	}
	if err := x.sanityCheck(106, 200); !errors.Is(err, ErrCorruptFile) {
		t.Fatalf("an entry below the segment passed the sanity check: %v", err)
	}

	// collect: overlap with [from, upper), stopping at an LSO >= upper.
	for _, tc := range []struct {
		from, upper int64
		want        []int64 // producer ids
		complete    bool
	}{
		{0, 95, []int64{7}, true},
		{0, 100, []int64{7}, true},
		{0, 107, []int64{7, 0x0102030405060708}, true},
		{106, 200, []int64{0x0102030405060708}, false},
		{106, 107, []int64{0x0102030405060708}, true},
		{111, 200, nil, false},
	} {
		out, complete, err := x.collect(tc.from, tc.upper, nil)
		var pids []int64
		for _, e := range out {
			pids = append(pids, e.ProducerID)
		}
		if err != nil || !slices.Equal(pids, tc.want) || complete != tc.complete {
			t.Errorf("collect(%d, %d) = %v complete=%v err=%v, want %v complete=%v", tc.from, tc.upper, pids, complete, err, tc.want, tc.complete)
		}
	}

	if err := x.truncateTo(110); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != txnEntrySize {
		t.Fatalf("after truncating at 110 the file has %d bytes, want one entry", st.Size())
	}
	if err := x.append(es[1:]); err != nil {
		t.Fatalf("re-append after truncation: %v", err)
	}
	x.close()

	// A version above 0 is refused, as Kafka's reader does.
	raw[txnEntrySize+1] = 1
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTxnIndex(path); !errors.Is(err, ErrCorruptFile) {
		t.Fatalf("version 1 entry: %v", err)
	}
}

// TestLastStableOffsetTransactions walks the LSO through open, unreplicated,
// committed and aborted transactions of several producers, and checks the
// transaction index entries of the aborts.
func TestLastStableOffsetTransactions(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	if got := lsoAtEnd(l); got != 0 {
		t.Fatalf("empty log LSO %d", got)
	}
	mustAppend(t, l, txn(1, 0, 0, 3).bytes(), 0)  // 0-2: producer 1 opens at 0
	mustAppend(t, l, idem(2, 0, 0, 1).bytes(), 0) // 3: not transactional
	if got := lsoAtEnd(l); got != 0 {
		t.Fatalf("LSO with producer 1 open at 0: %d", got)
	}
	mustAppend(t, l, txn(3, 0, 0, 2).bytes(), 0) // 4-5: producer 3 opens at 4
	mustAppend(t, l, txn(1, 0, 3, 1).bytes(), 0) // 6: producer 1 again
	abort := mustMarker(t, l, 1, 0, false, 5)    // 7: abort producer 1
	if abort.FirstOffset != 7 {
		t.Fatalf("marker at %d, want 7", abort.FirstOffset)
	}
	// The marker is not below the HW yet: producer 1's transaction still
	// holds the LSO.
	if got := l.LastStableOffset(7); got != 0 {
		t.Fatalf("LSO before the abort marker is replicated: %d, want 0", got)
	}
	l.SetHighWatermark(8)
	if got := l.LastStableOffset(8); got != 4 {
		t.Fatalf("LSO after the abort is replicated: %d, want 4 (producer 3)", got)
	}
	mustMarker(t, l, 3, 0, true, 5) // 8: commit producer 3
	if got := lsoAtEnd(l); got != 9 {
		t.Fatalf("LSO with nothing open: %d, want the HW 9", got)
	}
	// A marker without an open transaction ends an empty one at itself.
	mustMarker(t, l, 4, 0, false, 1) // 9
	if got := lsoAtEnd(l); got != 10 {
		t.Fatalf("LSO after an empty abort: %d", got)
	}
	want := []AbortedTxn{
		{ProducerID: 1, FirstOffset: 0, LastOffset: 7, LastStableOffset: 4},
		{ProducerID: 4, FirstOffset: 9, LastOffset: 9, LastStableOffset: 10},
	}
	if got := activeTxnIndex(t, l); !slices.Equal(got, want) {
		t.Fatalf("transaction index %+v, want %+v", got, want)
	}
	if got, err := l.AbortedTransactions(3, 5); err != nil || !slices.Equal(got, want[:1]) {
		t.Fatalf("AbortedTransactions(3, 5) = %+v, %v", got, err)
	}
	ps, _ := l.Producers().Producer(1)
	if ps.CurrentTxnFirstOffset != -1 || ps.CoordinatorEpoch != 5 {
		t.Fatalf("producer 1 after its abort: %+v", ps)
	}
	// The LSO never goes below the log start offset.
	mustAppend(t, l, txn(5, 0, 0, 1).bytes(), 0) // 10
	mustAppend(t, l, plain(1, 1, 1).bytes(), 0)  // 11
	if err := l.SetLogStartOffset(11); err != nil {
		t.Fatal(err)
	}
	if got := lsoAtEnd(l); got != 11 {
		t.Fatalf("LSO with an open transaction below the log start: %d, want 11", got)
	}
}

func TestTransactionalProducerChecks(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	mustAppend(t, l, txn(1, 0, 0, 1).bytes(), 0)
	if _, err := l.AppendAsLeader(idem(1, 0, 1, 1).bytes(), 0); !errors.Is(err, ErrInvalidTxnState) {
		t.Fatalf("non-transactional batch during a transaction: %v", err)
	}
	// The coordinator's marker at a newer epoch (a fencing abort) fences
	// the old producer's later batches.
	mustMarker(t, l, 1, 1, false, 3)
	if _, err := l.AppendAsLeader(txn(1, 0, 1, 1).bytes(), 0); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("zombie batch after the fencing abort: %v", err)
	}
	if _, err := l.AppendEndTxnMarker(1, 0, 3, true, 0, false); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("marker at an older producer epoch: %v", err)
	}
	if _, err := l.AppendEndTxnMarker(1, 1, 2, true, 0, false); !errors.Is(err, ErrCoordinatorFenced) {
		t.Fatalf("marker from an older coordinator: %v", err)
	}
	mustMarker(t, l, 1, 1, true, 4) // a newer coordinator is fine
	// Coordinator batches (transactional offset commits) are not
	// sequence-checked nor deduplicated: Kafka writes them with sequence 0.
	for i := 0; i < 2; i++ {
		info, err := l.AppendAsLeaderFrom(txn(2, 0, 0, 1).bytes(), 0, OriginCoordinator)
		if err != nil || info.Duplicate {
			t.Fatalf("coordinator batch %d: %+v %v", i, info, err)
		}
	}
	if _, err := l.AppendAsLeaderFrom(txn(2, 0, 0, 1).bytes(), 0, OriginReplication); err == nil {
		t.Fatal("a leader append with the replication origin was accepted")
	}
}

// txnScenario writes, over several segments, transactions of three
// producers with aborts and commits, and returns the expected index.
func txnScenario(t *testing.T, l *Log) {
	t.Helper()
	for round := int32(0); round < 6; round++ {
		mustAppend(t, l, txn(1, 0, round*2, 2).bytes(), 0)
		mustAppend(t, l, txn(2, 0, round, 1).bytes(), 0)
		mustAppend(t, l, plain(2, 30, 5).bytes(), 0)
		mustMarker(t, l, 1, 0, round%2 == 0, 1)
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
		mustMarker(t, l, 2, 0, round%3 == 0, 1)
	}
	mustAppend(t, l, txn(3, 0, 0, 1).bytes(), 0) // left open
}

func txnIndexFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if filepath.Ext(e.Name()) == txnIndexExt {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
	}
	return out
}

// TestTxnIndexRebuiltAfterUncleanStop: a directory left by a crash, with the
// transaction indexes of the segments after the recovery point lost, gets
// them back byte for byte, and the producer state (open transaction, LSO)
// as before.
func TestTxnIndexRebuiltAfterUncleanStop(t *testing.T) {
	dir := partDir(t)
	l := openTestLog(t, dir, testConfig(), OpenOptions{})
	txnScenario(t, l)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	want := txnIndexFiles(t, dir)
	if len(want) < 3 {
		t.Fatalf("scenario wrote %d transaction indexes, want several", len(want))
	}
	wantLSO := lsoAtEnd(l)
	if wantLSO != l.LogEndOffset()-1 {
		t.Fatalf("LSO %d, want producer 3's open transaction at %d", wantLSO, l.LogEndOffset()-1)
	}
	crash := filepath.Join(t.TempDir(), "topic-0")
	copyDir(t, dir, crash) // as a kill -9 would leave it: no clean marker
	l.Close()

	bases := l.SegmentBaseOffsets()
	rp := bases[2] + 1 // the recovery point inside the third segment
	for name := range want {
		if off, _ := parseOffsetFileName(name, txnIndexExt); off >= bases[2] {
			if err := os.Remove(filepath.Join(crash, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The producer snapshots after the recovery point are untrusted too.
	for _, off := range []int64{bases[3], bases[4], bases[5]} {
		os.Remove(filepath.Join(crash, offsetFileName(off, snapshotExt)))
	}
	r := openTestLog(t, crash, testConfig(), OpenOptions{RecoveryPoint: rp})
	defer r.Close()
	got := txnIndexFiles(t, crash)
	if len(got) != len(want) {
		t.Fatalf("after recovery %d transaction indexes, want %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s rebuilt as %x, want %x", name, got[name], b)
		}
	}
	r.SetHighWatermark(r.LogEndOffset())
	if lso := r.LastStableOffset(r.LogEndOffset()); lso != wantLSO {
		t.Fatalf("LSO after recovery %d, want %d", lso, wantLSO)
	}
}

// TestSnapshotKeepsOpenTransaction: a clean restart loads the producer
// state from the snapshot alone, which must carry the open transaction.
func TestSnapshotKeepsOpenTransaction(t *testing.T) {
	dir := partDir(t)
	l := openTestLog(t, dir, testConfig(), OpenOptions{})
	mustAppend(t, l, plain(1, 1, 1).bytes(), 0)
	mustAppend(t, l, txn(8, 2, 0, 2).bytes(), 0) // 1-2
	mustAppend(t, l, plain(1, 1, 1).bytes(), 0)  // 3
	leo := l.LogEndOffset()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	states, err := ReadProducerSnapshot(filepath.Join(dir, offsetFileName(leo, snapshotExt)))
	if err != nil || len(states) != 1 || states[0].CurrentTxnFirstOffset != 1 {
		t.Fatalf("snapshot at %d: %+v %v", leo, states, err)
	}
	// Make replay impossible to tell apart: the snapshot is the only
	// source of the state on a clean open at the log end.
	r := openTestLog(t, dir, testConfig(), OpenOptions{CleanShutdown: true})
	defer r.Close()
	if lso := lsoAtEnd(r); lso != 1 {
		t.Fatalf("LSO after a clean restart: %d, want 1", lso)
	}
	mustMarker(t, r, 8, 2, false, 0)
	if got := activeTxnIndex(t, r); len(got) != 1 || got[0].FirstOffset != 1 {
		t.Fatalf("abort after restart indexed as %+v", got)
	}
}

// TestTruncationRollsBackTransactions: cutting off a marker reopens its
// transaction (and drops its index entry); cutting off the transaction's
// data closes it.
func TestTruncationRollsBackTransactions(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	mustAppend(t, l, plain(2, 1, 1).bytes(), 0)  // 0-1
	mustAppend(t, l, txn(1, 0, 0, 2).bytes(), 0) // 2-3
	mustMarker(t, l, 1, 0, false, 0)             // 4
	mustAppend(t, l, plain(1, 1, 1).bytes(), 0)  // 5
	if lso := lsoAtEnd(l); lso != 6 || len(activeTxnIndex(t, l)) != 1 {
		t.Fatalf("before truncation: LSO %d, index %+v", lso, activeTxnIndex(t, l))
	}
	if err := l.TruncateTo(4); err != nil {
		t.Fatal(err)
	}
	if got := activeTxnIndex(t, l); len(got) != 0 {
		t.Fatalf("index entry of a truncated marker kept: %+v", got)
	}
	if lso := lsoAtEnd(l); lso != 2 {
		t.Fatalf("LSO after cutting the marker: %d, want 2", lso)
	}
	if err := l.TruncateTo(2); err != nil {
		t.Fatal(err)
	}
	if lso := lsoAtEnd(l); lso != 2 {
		t.Fatalf("LSO after cutting the transaction: %d, want the HW 2", lso)
	}
	if ps, ok := l.Producers().Producer(1); ok && ps.CurrentTxnFirstOffset != -1 {
		t.Fatalf("producer 1 still has a transaction: %+v", ps)
	}
}

// TestFollowerKeepsLeaderTransactions: a follower appending the leader's
// batches ends with the same transaction index and LSO.
func TestFollowerKeepsLeaderTransactions(t *testing.T) {
	leader := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer leader.Close()
	txnScenario(t, leader)
	follower := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer follower.Close()
	bases := leader.SegmentBaseOffsets()
	for i, b := range bases {
		end := leader.LogEndOffset()
		if i+1 < len(bases) {
			end = bases[i+1]
		}
		data, err := leader.ReadBytes(b, 1<<30, end)
		if err != nil {
			t.Fatal(err)
		}
		if err := follower.Roll(); err != nil {
			t.Fatal(err)
		}
		if _, err := follower.AppendAsFollower(data); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := activeTxnIndex(t, follower), activeTxnIndex(t, leader); !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("follower index %+v, leader %+v", got, want)
	}
	if got, want := lsoAtEnd(follower), lsoAtEnd(leader); got != want {
		t.Fatalf("follower LSO %d, leader %d", got, want)
	}
}

func TestReadCommittedAbortedList(t *testing.T) {
	// The batches' timestamps are near 1000: markers stamped with the
	// wall clock would roll the segment by segment.ms.
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{Clock: newFakeClock(2000).Now})
	defer l.Close()
	mustAppend(t, l, txn(1, 0, 0, 2).bytes(), 0) // 0-1
	mustAppend(t, l, txn(2, 0, 0, 1).bytes(), 0) // 2
	mustMarker(t, l, 1, 0, false, 0)             // 3
	mustAppend(t, l, plain(1, 1, 1).bytes(), 0)  // 4
	mustMarker(t, l, 2, 0, false, 0)             // 5
	mustAppend(t, l, txn(3, 0, 0, 1).bytes(), 0) // 6, open
	lso := lsoAtEnd(l)
	if lso != 6 {
		t.Fatalf("LSO %d", lso)
	}
	info, aborted, err := l.ReadCommitted(0, 1<<20, lso, true)
	if err != nil {
		t.Fatal(err)
	}
	hs := readRegionsHeaders(t, info)
	if last := hs[len(hs)-1].LastOffset(); last != 5 {
		t.Fatalf("read_committed read up to %d, want the LSO 6 (exclusive)", last)
	}
	if len(aborted) != 2 || aborted[0].ProducerID != 1 || aborted[1].ProducerID != 2 {
		t.Fatalf("aborted %+v, want producers 1 and 2", aborted)
	}
	// From offset 4 on only producer 2's abort overlaps.
	_, aborted, err = l.ReadCommitted(4, 1<<20, lso, true)
	if err != nil || len(aborted) != 1 || aborted[0].ProducerID != 2 {
		t.Fatalf("from 4: %+v %v", aborted, err)
	}
	// Nothing to read: no list.
	if info, aborted, err := l.ReadCommitted(6, 1<<20, lso, true); err != nil || info.Size != 0 || aborted != nil {
		t.Fatalf("at the LSO: %+v %+v %v", info, aborted, err)
	}
}

func readRegionsHeaders(t *testing.T, info ReadInfo) []record.BatchHeader {
	t.Helper()
	var data []byte
	for _, r := range info.Regions {
		b := make([]byte, r.Size)
		if _, err := r.File.ReadAt(b, r.Position); err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	var hs []record.BatchHeader
	for _, b := range splitBatchesT(t, data) {
		h, _ := record.ParseBatchHeader(b)
		hs = append(hs, h)
	}
	return hs
}

// TestMarkerTimestamps: a marker is stamped with the log's clock, as
// LogAppendTime on topics that use it.
func TestMarkerTimestamps(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{Clock: newFakeClock(5000).Now})
	defer l.Close()
	for i, lat := range []bool{false, true} {
		info, err := l.AppendEndTxnMarker(int64(i), 0, 0, true, 0, lat)
		if err != nil {
			t.Fatal(err)
		}
		raw := readAllUnchecked(t, l)[info.FirstOffset]
		h, _ := record.ParseBatchHeader(raw)
		if h.LogAppendTime() != lat || h.MaxTimestamp != 5000 || !h.IsControl() || !h.IsTransactional() {
			t.Fatalf("marker with LogAppendTime %v: %+v", lat, h)
		}
		if err := record.VerifyCRC(raw); err != nil {
			t.Fatal(err)
		}
	}
}
