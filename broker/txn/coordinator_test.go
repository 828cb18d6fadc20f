package txn

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/txn/txnrec"
	"kafgo/internal/testing/testwait"
)

func TestInitProducerIDNewIDThenBump(t *testing.T) {
	e := newEnv(t)
	r := e.mustInit("t1")
	if r.ProducerID != 1000 || r.Epoch != 0 {
		t.Fatalf("first init %+v, want producer 1000 epoch 0", r)
	}
	v := e.last("t1")
	want := txnrec.Value{ProducerID: 1000, ProducerEpoch: 0, TimeoutMs: 60000, State: Empty, LastUpdateMs: e.now.Load(), StartMs: -1}
	if v == nil || !reflect.DeepEqual(*v, want) {
		t.Fatalf("logged %+v, want %+v", v, want)
	}
	r2 := e.mustInit("t1")
	if r2.ProducerID != 1000 || r2.Epoch != 1 {
		t.Fatalf("second init %+v, want producer 1000 epoch 1", r2)
	}
	if other := e.mustInit("t2"); other.ProducerID != 1001 || other.Epoch != 0 {
		t.Fatalf("another id %+v", other)
	}
}

func TestInitProducerIDRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		id      string
		timeout int32
		want    *kerr.Error
	}{
		{"", 60000, kerr.InvalidRequest},
		{"t", 0, kerr.InvalidTransactionTimeout},
		{"t", -1, kerr.InvalidTransactionTimeout},
		{"t", 900001, kerr.InvalidTransactionTimeout},
	} {
		r := recv(t, e.c.InitProducerID(context.Background(), tc.id, tc.timeout, nil))
		if r.Err != tc.want || r.ProducerID != -1 || r.Epoch != -1 {
			t.Errorf("init(%q, %d) = %+v, want %v", tc.id, tc.timeout, r, tc.want)
		}
	}
	if r := recv(t, e.c.InitProducerID(context.Background(), "t", 900000, nil)); r.Err != nil {
		t.Fatalf("the maximum timeout is allowed: %v", r.Err)
	}
}

func TestCommitWritesMarkersThenCompletes(t *testing.T) {
	e := newEnv(t)
	e.sender.setLeader(b0, 3)
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0, b0); err != nil {
		t.Fatal(err)
	}
	start := e.now.Load()
	if v := e.last("t1"); v.State != Ongoing || !slices.Equal(v.Partitions, []partid.TopicPartition{a0, b0}) || v.StartMs != start {
		t.Fatalf("after AddPartitions logged %+v", v)
	}
	// Adding partitions already in the transaction writes nothing.
	n := len(e.states("t1"))
	e.advance(time.Second)
	if err := e.add("t1", r, b0); err != nil || len(e.states("t1")) != n {
		t.Fatalf("re-adding: %v, %d records", err, len(e.states("t1")))
	}
	if err := e.add("t1", r, a1); err != nil {
		t.Fatal(err)
	}
	if v := e.last("t1"); v.StartMs != start || len(v.Partitions) != 3 {
		t.Fatalf("the start time moved or partitions missing: %+v", v)
	}
	if err := e.end("t1", r, true); err != nil {
		t.Fatal(err)
	}
	e.waitState("t1", CompleteCommit)
	if got, want := e.states("t1"), []string{"Empty", "Ongoing", "Ongoing", "PrepareCommit", "CompleteCommit"}; !slices.Equal(got, want) {
		t.Fatalf("logged states %v, want %v", got, want)
	}
	if v := e.last("t1"); len(v.Partitions) != 0 || v.ProducerEpoch != 0 {
		t.Fatalf("completion %+v", v)
	}
	// One request per leader, each with the commit marker for its
	// partitions at coordinator epoch 5.
	got := map[int32][]partid.TopicPartition{}
	for _, s := range e.sender.sent() {
		if s.req.Version != 0 || len(s.req.Markers) != 1 {
			t.Fatalf("request %+v", s.req)
		}
		m := s.req.Markers[0]
		if m.ProducerID != r.ProducerID || m.ProducerEpoch != r.Epoch || !m.Committed || m.CoordinatorEpoch != 5 {
			t.Fatalf("marker %+v", m)
		}
		for _, tp := range m.Topics {
			for _, p := range tp.Partitions {
				got[s.broker] = append(got[s.broker], partid.TopicPartition{Topic: tp.Topic, Partition: p})
			}
		}
	}
	if want := map[int32][]partid.TopicPartition{2: {a0, a1}, 3: {b0}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("markers by broker %v, want %v", got, want)
	}
	if d := e.describe("t1"); d.State != "CompleteCommit" || len(d.Partitions) != 0 || d.StartMs != start {
		t.Fatalf("describe %+v", d)
	}
	// A retried EndTxn is answered as done; the opposite is refused.
	if err := e.end("t1", r, true); err != nil {
		t.Fatalf("retried commit: %v", err)
	}
	if err := e.end("t1", r, false); err != kerr.InvalidTxnState {
		t.Fatalf("abort after commit: %v", err)
	}
	// The next transaction starts from CompleteCommit with a new start time.
	e.advance(time.Second)
	if err := e.add("t1", r, a0); err != nil {
		t.Fatal(err)
	}
	if v := e.last("t1"); v.StartMs != e.now.Load() {
		t.Fatalf("second transaction start %d, want %d", v.StartMs, e.now.Load())
	}
}

func TestRequestsDuringTheMarkerPhase(t *testing.T) {
	e := newEnv(t)
	hold := make(chan struct{})
	e.sender.hold = hold
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0); err != nil {
		t.Fatal(err)
	}
	if err := e.end("t1", r, false); err != nil {
		t.Fatal(err)
	}
	if d := e.describe("t1"); d.State != "PrepareAbort" || !slices.Equal(d.Partitions, []partid.TopicPartition{a0}) {
		t.Fatalf("describe during the marker phase %+v", d)
	}
	checks := map[string]*kerr.Error{
		"retried abort":  e.end("t1", r, false),
		"commit":         e.end("t1", r, true),
		"add partitions": e.add("t1", r, a1),
		"init":           e.init("t1", nil).Err,
	}
	want := map[string]*kerr.Error{"retried abort": kerr.ConcurrentTransactions, "commit": kerr.ConcurrentTransactions,
		"add partitions": kerr.ConcurrentTransactions, "init": kerr.ConcurrentTransactions}
	if !reflect.DeepEqual(checks, want) {
		t.Fatalf("got %v, want %v", checks, want)
	}
	close(hold)
	e.waitState("t1", CompleteAbort)
	if r2 := e.mustInit("t1"); r2.Epoch != 1 {
		t.Fatalf("init after the abort: %+v", r2)
	}
}

func TestEndTxnRefusals(t *testing.T) {
	e := newEnv(t)
	r := e.mustInit("t1")
	cases := []struct {
		name string
		got  *kerr.Error
		want *kerr.Error
	}{
		{"empty id", recv(t, e.c.EndTxn("", 1, 0, true)), kerr.InvalidRequest},
		{"unknown id", recv(t, e.c.EndTxn("nope", 1, 0, true)), kerr.InvalidProducerIDMapping},
		{"other producer", recv(t, e.c.EndTxn("t1", r.ProducerID+1, 0, true)), kerr.InvalidProducerIDMapping},
		{"no transaction", e.end("t1", r, true), kerr.InvalidTxnState},
		{"stale epoch", recv(t, e.c.EndTxn("t1", r.ProducerID, r.Epoch-1, true)), kerr.ProducerFenced},
		{"future epoch", recv(t, e.c.EndTxn("t1", r.ProducerID, r.Epoch+1, true)), kerr.ProducerFenced},
		{"add: empty id", recv(t, e.c.AddPartitions("", r.ProducerID, 0, []partid.TopicPartition{a0})), kerr.InvalidRequest},
		{"add: unknown id", recv(t, e.c.AddPartitions("nope", r.ProducerID, 0, []partid.TopicPartition{a0})), kerr.InvalidProducerIDMapping},
		{"add: other producer", recv(t, e.c.AddPartitions("t1", 7, 0, []partid.TopicPartition{a0})), kerr.InvalidProducerIDMapping},
		{"add: stale epoch", recv(t, e.c.AddPartitions("t1", r.ProducerID, 5, []partid.TopicPartition{a0})), kerr.ProducerFenced},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// A second producer with the same transactional id fences the first: its
// open transaction is aborted with a bumped epoch, the newcomer retries
// after CONCURRENT_TRANSACTIONS and gets the epoch after that, and the
// zombie's requests are refused.
func TestZombieFencing(t *testing.T) {
	e := newEnv(t)
	zombie := e.mustInit("t1")
	if err := e.add("t1", zombie, a0, b0); err != nil {
		t.Fatal(err)
	}
	if r := e.init("t1", nil); r.Err != kerr.ConcurrentTransactions {
		t.Fatalf("init while a transaction is open: %+v", r)
	}
	// The abort's markers carry the fencing epoch, 1.
	e.waitState("t1", CompleteAbort)
	for _, s := range e.sender.sent() {
		for _, m := range s.req.Markers {
			if m.Committed || m.ProducerEpoch != 1 {
				t.Fatalf("fencing marker %+v", m)
			}
		}
	}
	if got, want := e.states("t1"), []string{"Empty", "Ongoing", "PrepareAbort", "CompleteAbort"}; !slices.Equal(got, want) {
		t.Fatalf("logged %v, want %v", got, want)
	}
	if v := e.last("t1"); v.ProducerEpoch != 1 {
		t.Fatalf("abort logged at epoch %d", v.ProducerEpoch)
	}
	fresh := e.mustInit("t1")
	if fresh.ProducerID != zombie.ProducerID || fresh.Epoch != 2 {
		t.Fatalf("the newcomer got %+v, want epoch 2", fresh)
	}
	if err := e.add("t1", zombie, a0); err != kerr.ProducerFenced {
		t.Fatalf("zombie AddPartitions: %v", err)
	}
	if err := e.end("t1", zombie, true); err != kerr.ProducerFenced {
		t.Fatalf("zombie EndTxn: %v", err)
	}
	if err := e.add("t1", fresh, a0); err != nil {
		t.Fatalf("the new producer: %v", err)
	}
}

// KIP-360: a producer naming its id and epoch bumps only if they are
// current; a retry of a bump that succeeded gets the same answer; anyone
// else is fenced.
func TestInitProducerIDWithExpectedEpoch(t *testing.T) {
	e := newEnv(t)
	r := e.mustInit("t1")
	bumped := e.init("t1", &ProducerIDEpoch{r.ProducerID, r.Epoch})
	if bumped.Err != nil || bumped.ProducerID != r.ProducerID || bumped.Epoch != 1 {
		t.Fatalf("bump %+v", bumped)
	}
	if retry := e.init("t1", &ProducerIDEpoch{r.ProducerID, r.Epoch}); retry != bumped {
		t.Fatalf("retried bump %+v, want %+v", retry, bumped)
	}
	for _, bad := range []ProducerIDEpoch{{r.ProducerID, 7}, {r.ProducerID + 1, 1}} {
		if got := e.init("t1", &bad); got.Err != kerr.ProducerFenced {
			t.Errorf("expected %+v: %+v", bad, got)
		}
	}
	// A producer that got UNKNOWN_PRODUCER_ID on a fresh id keeps its
	// (unknown here) producer id: a new id's metadata accepts it.
	if got := e.init("t2", &ProducerIDEpoch{55, 3}); got.Err != nil || got.Epoch != 0 {
		t.Fatalf("expected epoch on a new id: %+v", got)
	}
}

// An exhausted epoch moves the transactional id to a fresh producer id.
func TestEpochExhaustionRotatesProducerID(t *testing.T) {
	log := newFakeLog()
	log.put(t, 0, "t1", &txnrec.Value{ProducerID: 42, ProducerEpoch: 32766, TimeoutMs: 60000, State: CompleteCommit, LastUpdateMs: 1, StartMs: 1})
	log.put(t, 0, "t2", &txnrec.Value{ProducerID: 43, ProducerEpoch: 32766, TimeoutMs: 60000, State: Empty, LastUpdateMs: 1, StartMs: -1})
	e := newEnvWith(t, log, 5)
	r := e.mustInit("t1")
	if r.ProducerID != 1000 || r.Epoch != 0 {
		t.Fatalf("exhausted producer got %+v, want a new producer id at epoch 0", r)
	}
	// KIP-360: the exhausted producer names its old id and epoch.
	r2 := e.init("t2", &ProducerIDEpoch{43, 32766})
	if r2.Err != nil || r2.ProducerID != 1001 || r2.Epoch != 0 {
		t.Fatalf("exhausted KIP-360 producer got %+v", r2)
	}
	// Its retry names the old id: still recognised (lastProducerId).
	if again := e.init("t2", &ProducerIDEpoch{43, 32766}); again.Err != nil || again.ProducerID != 1001 {
		t.Fatalf("retry after rotation %+v", again)
	}
}

func TestTimedOutTransactionIsAbortedAndProducerFenced(t *testing.T) {
	e := newEnv(t)
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0); err != nil {
		t.Fatal(err)
	}
	e.c.AbortTimedOut()
	if d := e.describe("t1"); d.State != "Ongoing" {
		t.Fatalf("aborted before its timeout: %+v", d)
	}
	e.advance(60 * time.Second) // start + timeout is not yet passed
	e.c.AbortTimedOut()
	if d := e.describe("t1"); d.State != "Ongoing" {
		t.Fatalf("aborted at exactly its timeout: %+v", d)
	}
	e.advance(time.Millisecond)
	e.c.AbortTimedOut()
	e.waitState("t1", CompleteAbort)
	if v := e.last("t1"); v.ProducerEpoch != r.Epoch+1 || v.State != CompleteAbort {
		t.Fatalf("logged %+v", v)
	}
	for _, s := range e.sender.sent() {
		if m := s.req.Markers[0]; m.Committed || m.ProducerEpoch != r.Epoch+1 {
			t.Fatalf("timeout marker %+v", m)
		}
	}
	if err := e.end("t1", r, true); err != kerr.ProducerFenced {
		t.Fatalf("the timed-out producer's commit: %v", err)
	}
	if err := e.add("t1", r, a0); err != kerr.ProducerFenced {
		t.Fatalf("the timed-out producer's AddPartitions: %v", err)
	}
}

func TestIdleTransactionalIDsExpire(t *testing.T) {
	e := newEnv(t)
	r := e.mustInit("idle")
	e.mustInit("open")
	open := e.mustInit("open")
	if err := e.add("open", open, a0); err != nil {
		t.Fatal(err)
	}
	e.advance(30 * time.Minute)
	e.c.ExpireTransactionalIDs()
	if d := e.describe("idle"); d.Err != nil {
		t.Fatalf("expired too early: %+v", d)
	}
	e.advance(30 * time.Minute)
	e.c.ExpireTransactionalIDs()
	testwait.Until(t, 5*time.Second, "the idle id to expire", func() bool { return e.describe("idle").Err == kerr.TransactionalIDNotFound })
	if got := e.states("idle"); !slices.Equal(got, []string{"Empty", "-"}) {
		t.Fatalf("logged %v, want a tombstone after Empty", got)
	}
	if d := e.describe("open"); d.Err != nil || d.State != "Ongoing" {
		t.Fatalf("an Ongoing transaction expired: %+v", d)
	}
	// The expired id starts over with a new producer id.
	if again := e.mustInit("idle"); again.ProducerID == r.ProducerID || again.Epoch != 0 {
		t.Fatalf("after expiry %+v", again)
	}
}

func TestListAndDescribe(t *testing.T) {
	e := newEnv(t)
	r1 := e.mustInit("t1")
	r2 := e.mustInit("t2")
	if err := e.add("t2", r2, b0, a1); err != nil {
		t.Fatal(err)
	}
	list, unknown, err := e.c.List(nil, nil)
	if err != nil || unknown != nil {
		t.Fatal(err, unknown)
	}
	want := []Listing{{"t1", r1.ProducerID, "Empty"}, {"t2", r2.ProducerID, "Ongoing"}}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("list %+v", list)
	}
	list, unknown, _ = e.c.List([]string{"Ongoing", "Bogus"}, nil)
	if !reflect.DeepEqual(list, want[1:]) || !slices.Equal(unknown, []string{"Bogus"}) {
		t.Fatalf("by state %+v %v", list, unknown)
	}
	if list, _, _ = e.c.List([]string{"Bogus"}, nil); len(list) != 0 {
		t.Fatalf("an unknown state matched %+v", list)
	}
	if list, _, _ = e.c.List(nil, []int64{r1.ProducerID}); !reflect.DeepEqual(list, want[:1]) {
		t.Fatalf("by producer %+v", list)
	}
	d := e.c.Describe([]string{"t2", "nope"})
	if d[0].State != "Ongoing" || d[0].TimeoutMs != 60000 || d[0].StartMs != e.now.Load() || d[0].ProducerID != r2.ProducerID ||
		!slices.Equal(d[0].Partitions, []partid.TopicPartition{a1, b0}) {
		t.Fatalf("describe %+v", d[0])
	}
	if d[1].Err != kerr.TransactionalIDNotFound {
		t.Fatalf("describe unknown %+v", d[1])
	}
}

func TestWriteErrorsAreMappedAndReleaseThePendingState(t *testing.T) {
	for _, tc := range []struct {
		appendErr, waitErr error
		want               *kerr.Error
	}{
		{appendErr: kerr.NotEnoughReplicas, want: kerr.CoordinatorNotAvailable},
		{appendErr: kerr.NotLeaderForPartition, want: kerr.NotCoordinator},
		{appendErr: kerr.MessageTooLarge, want: kerr.UnknownServerError},
		{waitErr: kerr.RequestTimedOut, want: kerr.CoordinatorNotAvailable},
		{waitErr: kerr.NotEnoughReplicasAfterAppend, want: kerr.CoordinatorNotAvailable},
		// Mapped by kafkaerr's table first: a failed write to the log's
		// files is KAFKA_STORAGE_ERROR, which Kafka answers NOT_COORDINATOR.
		{waitErr: &os.PathError{Op: "write", Path: "00000000000000000000.log", Err: syscall.EIO}, want: kerr.NotCoordinator},
		{waitErr: errors.New("something unforeseen"), want: kerr.UnknownServerError},
	} {
		e := newEnv(t)
		r := e.mustInit("t1")
		e.log.Mu.Lock()
		e.log.AppendErr, e.log.WaitErr = tc.appendErr, tc.waitErr
		e.log.Mu.Unlock()
		if err := e.add("t1", r, a0); err != tc.want {
			t.Errorf("append %v wait %v: %v, want %v", tc.appendErr, tc.waitErr, err, tc.want)
		}
		e.log.Mu.Lock()
		e.log.AppendErr, e.log.WaitErr = nil, nil
		e.log.Mu.Unlock()
		if err := e.add("t1", r, a0); err != nil {
			t.Errorf("after %v/%v the next write failed: %v", tc.appendErr, tc.waitErr, err)
		}
	}
}

// A new leader loads the partition (requests meanwhile get
// COORDINATOR_LOAD_IN_PROGRESS) and completes what the old one left in
// PrepareCommit, with its own coordinator epoch.
func TestLoadResumesPreparedTransactions(t *testing.T) {
	log := newFakeLog()
	log.put(t, 0, "done", &txnrec.Value{ProducerID: 7, ProducerEpoch: 2, TimeoutMs: 60000, State: Empty, LastUpdateMs: 1, StartMs: -1})
	log.put(t, 0, "done", &txnrec.Value{ProducerID: 7, ProducerEpoch: 2, TimeoutMs: 60000, State: Ongoing, Partitions: []partid.TopicPartition{a0}, LastUpdateMs: 2, StartMs: 2})
	log.put(t, 0, "done", &txnrec.Value{ProducerID: 7, ProducerEpoch: 2, TimeoutMs: 60000, State: CompleteAbort, LastUpdateMs: 3, StartMs: 2})
	log.put(t, 0, "half", &txnrec.Value{ProducerID: 8, ProducerEpoch: 4, TimeoutMs: 60000, State: PrepareCommit, Partitions: []partid.TopicPartition{a0, b0}, LastUpdateMs: 4, StartMs: 3})
	log.put(t, 0, "gone", &txnrec.Value{ProducerID: 9, ProducerEpoch: 0, TimeoutMs: 60000, State: Empty, LastUpdateMs: 1, StartMs: -1})
	log.put(t, 0, "gone", nil)
	log.ReadHold = make(chan struct{})
	e := newEnvWith(t, log, 0)
	e.c.OnLeadershipChange(TopicName, 0, true, 9)
	if r := e.init("half", nil); r.Err != kerr.CoordinatorLoadInProgress {
		t.Fatalf("init while loading: %+v", r)
	}
	if _, _, err := e.c.List(nil, nil); err != kerr.CoordinatorLoadInProgress {
		t.Fatalf("list while loading: %v", err)
	}
	close(log.ReadHold)
	e.waitState("half", CompleteCommit)
	sent := e.sender.sent()
	if len(sent) != 1 {
		t.Fatalf("%d requests, want 1", len(sent))
	}
	m := sent[0].req.Markers[0]
	if m.ProducerID != 8 || m.ProducerEpoch != 4 || !m.Committed || m.CoordinatorEpoch != 9 || len(m.Topics) != 2 {
		t.Fatalf("resumed marker %+v", m)
	}
	if d := e.describe("done"); d.State != "CompleteAbort" || d.ProducerID != 7 || d.Epoch != 2 {
		t.Fatalf("loaded %+v", d)
	}
	if d := e.describe("gone"); d.Err != kerr.TransactionalIDNotFound {
		t.Fatalf("a tombstoned id was loaded: %+v", d)
	}
	// Losing the leadership drops everything.
	e.c.OnLeadershipChange(TopicName, 0, false, 10)
	if d := e.describe("done"); d.Err != kerr.NotCoordinator {
		t.Fatalf("after losing leadership %+v", d)
	}
	if r := e.init("done", nil); r.Err != kerr.NotCoordinator {
		t.Fatalf("init after losing leadership %+v", r)
	}
}

// A coordinator failover in the middle of the marker phase: the old one's
// markers are abandoned, the new one (a new leader epoch) sends them again.
func TestFailoverDuringMarkerPhase(t *testing.T) {
	e := newEnv(t)
	e.sender.mu.Lock()
	e.sender.failReq = errors.New("broker 2 unreachable")
	e.sender.mu.Unlock()
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0); err != nil {
		t.Fatal(err)
	}
	if err := e.end("t1", r, true); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "marker retries", func() bool { return len(e.sender.sent()) >= 2 })
	e.c.OnLeadershipChange(TopicName, 0, false, 6)
	if got := e.c.markers.pending(); len(got) != 0 {
		// The job goes at the next drain.
		testwait.Until(t, 5*time.Second, "the old markers to be dropped", func() bool { return len(e.c.markers.pending()) == 0 })
	}
	e.sender.mu.Lock()
	e.sender.failReq = nil
	e.sender.mu.Unlock()
	e.lead(7)
	e.waitState("t1", CompleteCommit)
	last := e.sender.sent()[len(e.sender.sent())-1].req.Markers[0]
	if last.CoordinatorEpoch != 7 || !last.Committed {
		t.Fatalf("marker after failover %+v", last)
	}
	if got := e.states("t1"); !slices.Equal(got, []string{"Empty", "Ongoing", "PrepareCommit", "CompleteCommit"}) {
		t.Fatalf("logged %v", got)
	}
}

func TestMarkerErrorsAndLeaders(t *testing.T) {
	e := newEnv(t)
	gone := partid.TopicPartition{Topic: "deleted", Partition: 0}
	noLeader := partid.TopicPartition{Topic: "c", Partition: 0}
	e.sender.setLeader(noLeader, -1)
	tries := map[partid.TopicPartition]int{}
	e.sender.answer = func(_ int32, tp partid.TopicPartition, _ kmsg.WriteTxnMarkersRequestMarker) int16 {
		tries[tp]++ // under the sender's lock
		if tp == a0 && tries[tp] < 3 {
			return kerr.NotLeaderForPartition.Code
		}
		if tp == a1 && tries[tp] < 2 {
			return kerr.UnknownTopicOrPartition.Code
		}
		return 0
	}
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0, a1, gone, noLeader); err != nil {
		t.Fatal(err)
	}
	if err := e.end("t1", r, true); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "a0 and a1 to be written", func() bool {
		d := e.describe("t1")
		return slices.Equal(d.Partitions, []partid.TopicPartition{noLeader})
	})
	if d := e.describe("t1"); d.State != "PrepareCommit" {
		t.Fatalf("completed without c-0's marker: %+v", d)
	}
	e.sender.setLeader(noLeader, 4)
	e.waitState("t1", CompleteCommit)
	e.sender.mu.Lock()
	defer e.sender.mu.Unlock()
	if tries[a0] != 3 || tries[a1] != 2 || tries[gone] != 0 || tries[noLeader] != 1 {
		t.Fatalf("sends per partition %v", tries)
	}
}

// INVALID_PRODUCER_EPOCH from a partition means a newer producer owns the
// transaction: the coordinator stops sending and does not complete it.
func TestMarkerFencedGivesUp(t *testing.T) {
	e := newEnv(t)
	e.sender.answer = func(int32, partid.TopicPartition, kmsg.WriteTxnMarkersRequestMarker) int16 {
		return kerr.InvalidProducerEpoch.Code
	}
	r := e.mustInit("t1")
	if err := e.add("t1", r, a0); err != nil {
		t.Fatal(err)
	}
	if err := e.end("t1", r, false); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "the marker phase to be abandoned", func() bool {
		return len(e.sender.sent()) == 1 && len(e.c.markers.pending()) == 0
	})
	if got := e.states("t1"); got[len(got)-1] != "PrepareAbort" {
		t.Fatalf("logged %v", got)
	}
}

// Markers of several transactions for one broker share a request.
func TestMarkersAreBatchedPerBroker(t *testing.T) {
	e := newEnv(t)
	hold := make(chan struct{})
	e.sender.hold = hold
	var rs []InitResult
	for _, id := range []string{"t1", "t2", "t3"} {
		r := e.mustInit(id)
		if err := e.add(id, r, a0); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if err := e.end("t1", rs[0], true); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "the first request", func() bool { return len(e.sender.sent()) == 1 })
	if err := e.end("t2", rs[1], true); err != nil {
		t.Fatal(err)
	}
	if err := e.end("t3", rs[2], false); err != nil {
		t.Fatal(err)
	}
	close(hold)
	for _, id := range []string{"t2", "t3"} {
		e.waitState(id, map[string]State{"t2": CompleteCommit, "t3": CompleteAbort}[id])
	}
	sent := e.sender.sent()
	if len(sent) != 2 || len(sent[1].req.Markers) != 2 {
		t.Fatalf("%d requests; the second has %d markers, want 2", len(sent), len(sent[len(sent)-1].req.Markers))
	}
}
