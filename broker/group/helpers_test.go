package group

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/coordlog/memlog"
	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/record"
	"kafgo/internal/testing/testwait"
)

// fakeClock runs timers when the test advances it, in deadline order, on
// the test's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Advance moves time forward by d, firing every timer that comes due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.done && !t.at.After(target) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = target
			c.timers = slices.DeleteFunc(c.timers, func(t *fakeTimer) bool { return t.done })
			c.mu.Unlock()
			return
		}
		next.done = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
}

// fakeLog is an in-memory __consumer_offsets.
type fakeLog struct{ *memlog.Log }

func newFakeLog() *fakeLog { return &fakeLog{memlog.New()} }

// appendMarker writes a transaction marker as a partition leader does.
func (l *fakeLog) appendMarker(p int32, pid int64, epoch int16, commit bool) {
	typ := record.ControlAbort
	if commit {
		typ = record.ControlCommit
	}
	batch, err := record.BuildEndTxnMarker(0, pid, epoch, typ, 1, 0)
	if err != nil {
		panic(err)
	}
	if _, err := l.Append(p, -1, batch); err != nil {
		panic(err)
	}
}

// records decodes every record of partition p, in log order (transaction
// markers left out).
func (l *fakeLog) records(t *testing.T, p int32) []offsetsrec.Record {
	t.Helper()
	batches, err := l.Parsed(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []offsetsrec.Record
	for _, batch := range batches {
		if batch.IsControl() {
			continue
		}
		for _, r := range batch.Records {
			rec, err := offsetsrec.Decode(r.Key, r.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rec)
		}
	}
	return out
}

// env is a coordinator leading the single partition 0 of a fake log.
type env struct {
	t     *testing.T
	c     *Coordinator
	clock *fakeClock
	log   *fakeLog
}

func testConfig(clock *fakeClock) Config {
	return Config{
		NumPartitions:          1,
		MinSessionTimeout:      time.Second,
		MaxSessionTimeout:      time.Minute,
		InitialRebalanceDelay:  0,
		MetadataMaxBytes:       4096,
		Retention:              time.Hour,
		RetentionCheckInterval: time.Hour,
		CommitTimeout:          5 * time.Second,
		RequiredAcks:           -1,
		Clock:                  clock,
		Logger:                 slog.New(slog.DiscardHandler),
	}
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	return newEnvWithLog(t, newFakeLog(), mod)
}

func newEnvWithLog(t *testing.T, log *fakeLog, mod func(*Config)) *env {
	t.Helper()
	clock := newFakeClock()
	cfg := testConfig(clock)
	if mod != nil {
		mod(&cfg)
	}
	e := &env{t: t, c: New(cfg, log, nil), clock: clock, log: log}
	t.Cleanup(e.c.Stop)
	e.c.OnLeadershipChange(OffsetsTopic, 0, true, 1)
	e.waitLoaded()
	return e
}

func (e *env) waitLoaded() {
	e.t.Helper()
	testwait.Until(e.t, 5*time.Second, "partition 0 to load", func() bool {
		_, _, err := e.c.shardFor("any")
		return err == nil
	})
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no answer within 5s")
	}
	var zero T
	return zero
}

func pending[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("answered early: %+v", v)
	default:
	}
}

func errIs(t *testing.T, what string, got, want *kerr.Error) {
	t.Helper()
	if !errors.Is(errOrNil(got), errOrNil(want)) || (got == nil) != (want == nil) {
		t.Fatalf("%s: error %v, want %v", what, got, want)
	}
}

func errOrNil(e *kerr.Error) error {
	if e == nil {
		return nil
	}
	return e
}

var consumerProtos = []Protocol{{Name: "range", Metadata: subscription("t1")}, {Name: "roundrobin", Metadata: subscription("t1")}}

// subscription is a ConsumerProtocolSubscription v0 for topics.
func subscription(topics ...string) []byte {
	b := []byte{0, 0}
	b = append(b, 0, 0, 0, byte(len(topics)))
	for _, t := range topics {
		b = append(b, 0, byte(len(t)))
		b = append(b, t...)
	}
	return append(b, 0xff, 0xff, 0xff, 0xff) // null user data
}

func joinReq(member string) JoinRequest {
	return JoinRequest{Group: "g", MemberID: member, ClientID: "client", ClientHost: "/127.0.0.1",
		SessionTimeout: 10000, RebalanceTimeout: 30000, ProtocolType: "consumer", Protocols: consumerProtos}
}

// joinNew does a KIP-394 first join: MEMBER_ID_REQUIRED, then the join
// with the id; it returns the pending second join.
func (e *env) joinNew(mod func(*JoinRequest)) (string, <-chan JoinResult) {
	e.t.Helper()
	req := joinReq("")
	req.RequireKnownMemberID = true
	if mod != nil {
		mod(&req)
	}
	if req.InstanceID != nil {
		e.t.Fatal("joinNew is for dynamic members")
	}
	r := recv(e.t, e.c.JoinGroup(req))
	errIs(e.t, "first join", r.Err, kerr.MemberIDRequired)
	req.MemberID = r.MemberID
	return r.MemberID, e.c.JoinGroup(req)
}

// stableGroup makes a stable group of n dynamic members, the first the
// leader, each assigned its own name as bytes.
func (e *env) stableGroup(n int) []string {
	e.t.Helper()
	var ids []string
	var chans []<-chan JoinResult
	for range n {
		id, ch := e.joinNew(nil)
		ids = append(ids, id)
		chans = append(chans, ch)
	}
	e.clock.Advance(0) // the initial delay (0) runs out
	var leader string
	gen := int32(-1)
	for i, ch := range chans {
		r := recv(e.t, ch)
		errIs(e.t, "join", r.Err, nil)
		if r.MemberID != ids[i] {
			e.t.Fatalf("join answered member %q, want %q", r.MemberID, ids[i])
		}
		leader, gen = r.LeaderID, r.Generation
	}
	e.sync(ids, leader, gen)
	return ids
}

// sync runs SyncGroup for every member, the leader assigning each member
// its id.
func (e *env) sync(ids []string, leader string, gen int32) {
	e.t.Helper()
	var chans []<-chan SyncResult
	for _, id := range ids {
		if id == leader {
			continue
		}
		chans = append(chans, e.c.SyncGroup(SyncRequest{Group: "g", Generation: gen, MemberID: id}))
	}
	assign := map[string][]byte{}
	for _, id := range ids {
		assign[id] = []byte(id)
	}
	lch := e.c.SyncGroup(SyncRequest{Group: "g", Generation: gen, MemberID: leader, Assignments: assign})
	chans = append(chans, lch)
	for _, ch := range chans {
		r := recv(e.t, ch)
		errIs(e.t, "sync", r.Err, nil)
	}
}

func (e *env) state() State {
	e.t.Helper()
	g, err := e.c.lockGroup("g", false)
	if err != nil || g == nil {
		return Dead
	}
	defer g.mu.Unlock()
	return g.state
}

func (e *env) generation() int32 {
	e.t.Helper()
	g, _ := e.c.lockGroup("g", false)
	if g == nil {
		return -1
	}
	defer g.mu.Unlock()
	return g.generation
}

func (e *env) heartbeat(id string, gen int32) *kerr.Error {
	return e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: gen, MemberID: id})
}

func (e *env) commit(req CommitRequest) []*kerr.Error {
	e.t.Helper()
	return recv(e.t, e.c.CommitOffsets(req))
}

func simpleCommit(group string, offsets ...CommitOffset) CommitRequest {
	return CommitRequest{Group: group, Generation: -1, RetentionMs: -1, Offsets: offsets}
}

func off(topic string, p int32, o int64) CommitOffset {
	return CommitOffset{TopicPartition: TopicPartition{Topic: topic, Partition: p}, Offset: o, LeaderEpoch: -1, CommitTimestamp: -1}
}

func (e *env) fetched(group string, tps ...TopicPartition) map[TopicPartition]int64 {
	e.t.Helper()
	res, err := e.c.FetchOffsets(group, tps, false)
	if err != nil {
		e.t.Fatalf("fetch offsets: %v", err)
	}
	out := map[TopicPartition]int64{}
	for _, f := range res {
		out[f.TopicPartition] = f.Offset
	}
	return out
}
