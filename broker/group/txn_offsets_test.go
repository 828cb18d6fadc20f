package group

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/record"
)

var offsetsTP0 = partid.TopicPartition{Topic: OffsetsTopic, Partition: 0}

func (e *env) txnCommit(req TxnCommitRequest) []*kerr.Error {
	e.t.Helper()
	return recv(e.t, e.c.TxnCommitOffsets(req))
}

func txnReq(group string, pid int64, epoch int16, offsets ...CommitOffset) TxnCommitRequest {
	return TxnCommitRequest{Group: group, ProducerID: pid, ProducerEpoch: epoch, Generation: -1, Offsets: offsets}
}

func (e *env) stable(group string, tps ...TopicPartition) []FetchedOffset {
	e.t.Helper()
	res, err := e.c.FetchOffsets(group, tps, true)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// txnBatches lists the producer id, epoch and base sequence of each
// transactional data batch of partition 0.
func (l *fakeLog) txnBatches(t *testing.T) [][3]int64 {
	t.Helper()
	l.Mu.Lock()
	defer l.Mu.Unlock()
	var out [][3]int64
	for _, b := range l.Batches[0] {
		h, err := record.ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.IsTransactional() && !h.IsControl() {
			out = append(out, [3]int64{h.ProducerID, int64(h.ProducerEpoch), int64(h.BaseSequence)})
		}
	}
	return out
}

func TestTxnOffsetsBecomeVisibleOnlyOnCommit(t *testing.T) {
	e := newEnv(t, nil)
	tp := TopicPartition{Topic: "t", Partition: 0}
	errs := e.txnCommit(txnReq("g", 5, 2, off("t", 0, 42)))
	errIs(t, "txn commit", errs[0], nil)
	if got := e.fetched("g", tp)[tp]; got != -1 {
		t.Fatalf("a pending transactional offset is visible: %d", got)
	}
	if f := e.stable("g", tp); f[0].Err != kerr.UnstableOffsetCommit || f[0].Offset != -1 {
		t.Fatalf("require_stable fetch %+v", f)
	}
	if f := e.stable("g", TopicPartition{Topic: "t", Partition: 1}); f[0].Err != nil {
		t.Fatalf("another partition is unstable: %+v", f)
	}
	// A marker on another partition or topic changes nothing.
	e.c.OnTxnMarker(partid.TopicPartition{Topic: "t", Partition: 0}, 5, 2, true)
	e.c.OnTxnMarker(offsetsTP0, 6, 0, true)
	if got := e.fetched("g", tp)[tp]; got != -1 {
		t.Fatalf("visible after unrelated markers: %d", got)
	}
	e.log.appendMarker(0, 5, 2, true)
	e.c.OnTxnMarker(offsetsTP0, 5, 2, true)
	if got := e.fetched("g", tp)[tp]; got != 42 {
		t.Fatalf("after COMMIT: %d, want 42", got)
	}
	if f := e.stable("g", tp); f[0].Err != nil || f[0].Offset != 42 {
		t.Fatalf("require_stable after COMMIT %+v", f)
	}
	// Every commit is the producer's transactional batch at base
	// sequence 0, as Kafka's coordinator writes it.
	errIs(t, "second txn commit", e.txnCommit(txnReq("g", 5, 2, off("t", 0, 50), off("t", 1, 7)))[0], nil)
	if got, want := e.log.txnBatches(t), [][3]int64{{5, 2, 0}, {5, 2, 0}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("transactional batches (pid, epoch, seq) %v, want %v", got, want)
	}
	e.log.appendMarker(0, 5, 2, false)
	e.c.OnTxnMarker(offsetsTP0, 5, 2, false)
	if got := e.fetched("g", tp, TopicPartition{Topic: "t", Partition: 1}); got[tp] != 42 || got[TopicPartition{Topic: "t", Partition: 1}] != -1 {
		t.Fatalf("after ABORT: %v, want the committed 42 and none", got)
	}
	errIs(t, "commit at a new epoch", e.txnCommit(txnReq("g", 5, 3, off("t", 0, 60)))[0], nil)
	if got := e.log.txnBatches(t); got[2] != [3]int64{5, 3, 0} {
		t.Fatalf("new epoch batch %v", got[2])
	}
}

// KIP-447: TxnOffsetCommit v3 carries the member's generation and id.
func TestTxnOffsetCommitMemberChecks(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(1)
	gen := e.generation()
	cases := []struct {
		name string
		mod  func(*TxnCommitRequest)
		want *kerr.Error
	}{
		{"member of the generation", func(r *TxnCommitRequest) { r.MemberID, r.Generation = ids[0], gen }, nil},
		{"no member checks", func(r *TxnCommitRequest) {}, nil},
		{"unknown member", func(r *TxnCommitRequest) { r.MemberID, r.Generation = "ghost", gen }, kerr.UnknownMemberID},
		{"old generation", func(r *TxnCommitRequest) { r.MemberID, r.Generation = ids[0], gen-1 }, kerr.IllegalGeneration},
		{"generation alone", func(r *TxnCommitRequest) { r.Generation = gen + 1 }, kerr.IllegalGeneration},
		{"no group id", func(r *TxnCommitRequest) { r.Group = "" }, kerr.InvalidGroupID},
	}
	for i, tc := range cases {
		req := txnReq("g", int64(100+i), 0, off("t", 0, 1))
		tc.mod(&req)
		errIs(t, tc.name, e.txnCommit(req)[0], tc.want)
	}
	// A group nobody joined is created, as Kafka does.
	errIs(t, "new group", e.txnCommit(txnReq("fresh", 1, 0, off("t", 0, 1)))[0], nil)
	if f := e.stable("fresh", TopicPartition{Topic: "t", Partition: 0}); f[0].Err != kerr.UnstableOffsetCommit {
		t.Fatalf("fresh group %+v", f)
	}
}

// A plain commit written after a transactional one wins, whatever the
// order the marker arrives in (the later log offset is the truth).
func TestLaterPlainCommitWinsOverTxnCommit(t *testing.T) {
	e := newEnv(t, nil)
	tp := TopicPartition{Topic: "t", Partition: 0}
	errIs(t, "txn commit", e.txnCommit(txnReq("g", 5, 0, off("t", 0, 10)))[0], nil)
	errIs(t, "plain commit", e.commit(simpleCommit("g", off("t", 0, 20)))[0], nil)
	e.c.OnTxnMarker(offsetsTP0, 5, 0, true)
	if got := e.fetched("g", tp)[tp]; got != 20 {
		t.Fatalf("offset %d, want the later plain commit's 20", got)
	}
}

func TestTxnOffsetCommitWriteFailureDropsPending(t *testing.T) {
	e := newEnv(t, nil)
	tp := TopicPartition{Topic: "t", Partition: 0}
	e.log.Mu.Lock()
	e.log.WaitErr = kerr.NotEnoughReplicasAfterAppend
	e.log.Mu.Unlock()
	errIs(t, "txn commit", e.txnCommit(txnReq("g", 5, 0, off("t", 0, 10)))[0], kerr.CoordinatorNotAvailable)
	if f := e.stable("g", tp); f[0].Err != nil {
		t.Fatalf("a failed commit stayed pending: %+v", f)
	}
	e.c.OnTxnMarker(offsetsTP0, 5, 0, true)
	if got := e.fetched("g", tp)[tp]; got != -1 {
		t.Fatalf("a failed commit became visible: %d", got)
	}
}

// A new coordinator replays transactional commits: committed ones by
// their COMMIT marker, aborted ones dropped, open ones pending until their
// marker; a marker that lands during the load is applied after it.
func TestLoadResolvesTransactionalOffsets(t *testing.T) {
	old := newEnv(t, nil)
	errIs(t, "commit pid 9", old.txnCommit(txnReq("g", 9, 0, off("t", 0, 90)))[0], nil)
	errIs(t, "commit pid 10", old.txnCommit(txnReq("g", 10, 0, off("t", 1, 100)))[0], nil)
	errIs(t, "commit pid 11", old.txnCommit(txnReq("g", 11, 0, off("t", 2, 110)))[0], nil)
	errIs(t, "commit pid 12", old.txnCommit(txnReq("h", 12, 0, off("t", 0, 120)))[0], nil)
	errIs(t, "plain", old.commit(simpleCommit("g", off("t", 3, 3)))[0], nil)
	old.log.appendMarker(0, 9, 0, true)
	old.log.appendMarker(0, 10, 0, false)

	log := old.log
	log.ReadHold = make(chan struct{})
	clock := newFakeClock()
	c := New(testConfig(clock), log, nil)
	t.Cleanup(c.Stop)
	c.OnLeadershipChange(OffsetsTopic, 0, true, 2)
	c.OnTxnMarker(offsetsTP0, 12, 0, true) // while loading
	close(log.ReadHold)
	e := &env{t: t, c: c, clock: clock, log: log}
	e.waitLoaded()
	got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0}, TopicPartition{Topic: "t", Partition: 1}, TopicPartition{Topic: "t", Partition: 2}, TopicPartition{Topic: "t", Partition: 3})
	want := map[TopicPartition]int64{{Topic: "t", Partition: 0}: 90, {Topic: "t", Partition: 1}: -1, {Topic: "t", Partition: 2}: -1, {Topic: "t", Partition: 3}: 3}
	for tp, w := range want {
		if got[tp] != w {
			t.Fatalf("after load %v: %v, want %v", tp, got, want)
		}
	}
	if f := e.stable("g", TopicPartition{Topic: "t", Partition: 2}); f[0].Err != kerr.UnstableOffsetCommit {
		t.Fatalf("the open transaction's offset is not pending: %+v", f)
	}
	if got := e.fetched("h", TopicPartition{Topic: "t", Partition: 0}); got[TopicPartition{Topic: "t", Partition: 0}] != 120 {
		t.Fatalf("the marker written during the load was lost: %v", got)
	}
	c.OnTxnMarker(offsetsTP0, 11, 0, true)
	if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 2}); got[TopicPartition{Topic: "t", Partition: 2}] != 110 {
		t.Fatalf("after the late COMMIT: %v", got)
	}
}

// Deleting a group forgets its pending transactional offsets.
func TestDeleteGroupDropsPendingTxnOffsets(t *testing.T) {
	e := newEnv(t, nil)
	errIs(t, "txn commit", e.txnCommit(txnReq("g", 5, 0, off("t", 0, 10)))[0], nil)
	errs := recv(t, e.c.DeleteGroups([]string{"g"}))
	errIs(t, "delete", errs[0], nil)
	e.c.OnTxnMarker(offsetsTP0, 5, 0, true)
	if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0}); got[TopicPartition{Topic: "t", Partition: 0}] != -1 {
		t.Fatalf("a deleted group's pending offset came back: %v", got)
	}
}
