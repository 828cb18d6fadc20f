package txn

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/coordlog"
	"kafgo/broker/coordlog/memlog"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/txn/txnrec"
	"kafgo/internal/testing/testwait"
)

// fakeLog is an in-memory __transaction_state that insists on acks=all.
type fakeLog struct{ *memlog.Log }

func newFakeLog() *fakeLog { return &fakeLog{memlog.New()} }

func (l *fakeLog) Append(p int32, acks int16, batch []byte) (coordlog.AppendResult, error) {
	if acks != -1 {
		return coordlog.AppendResult{}, fmt.Errorf("acks=%d, want -1", acks)
	}
	return l.Log.Append(p, acks, batch)
}

// logged is one decoded record: nil value for a tombstone.
type logged struct {
	id    string
	value *txnrec.Value
}

func (l *fakeLog) records(t *testing.T, p int32) []logged {
	t.Helper()
	batches, err := l.Parsed(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []logged
	for _, batch := range batches {
		if batch.Codec() != record.CodecNone || batch.ProducerID != -1 {
			t.Fatalf("batch codec %v producer %d: __transaction_state batches are plain", batch.Codec(), batch.ProducerID)
		}
		for _, r := range batch.Records {
			id, err := txnrec.ParseKey(r.Key)
			if err != nil {
				t.Fatal(err)
			}
			rec := logged{id: id}
			if r.Value != nil {
				v, err := txnrec.ParseValue(r.Value)
				if err != nil {
					t.Fatal(err)
				}
				rec.value = &v
			}
			out = append(out, rec)
		}
	}
	return out
}

// put appends a record as a previous leader would have written it.
func (l *fakeLog) put(t *testing.T, p int32, id string, v *txnrec.Value) {
	t.Helper()
	key, err := txnrec.AppendKey(nil, id)
	if err != nil {
		t.Fatal(err)
	}
	var val []byte
	if v != nil {
		if val, err = v.AppendTo(nil); err != nil {
			t.Fatal(err)
		}
	}
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(1, key, val, nil)
	batch, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(p, -1, batch); err != nil {
		t.Fatal(err)
	}
}

// fakeSender is the cluster as the marker manager sees it: leaders per
// partition and brokers that answer WriteTxnMarkers.
type fakeSender struct {
	mu      sync.Mutex
	leaders map[partid.TopicPartition]int32
	reqs    []sentReq
	// answer decides a partition's error code (nil: NONE); failReq fails
	// whole requests while set; hold, when set, blocks sends until closed.
	answer  func(broker int32, tp partid.TopicPartition, m kmsg.WriteTxnMarkersRequestMarker) int16
	failReq error
	hold    chan struct{}
}

type sentReq struct {
	broker int32
	req    *kmsg.WriteTxnMarkersRequest
}

func newFakeSender() *fakeSender { return &fakeSender{leaders: map[partid.TopicPartition]int32{}} }

func (s *fakeSender) setLeader(tp partid.TopicPartition, b int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaders[tp] = b
}

func (s *fakeSender) Leader(tp partid.TopicPartition) (int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.leaders[tp]
	return b, ok
}

func (s *fakeSender) Send(ctx context.Context, broker int32, req *kmsg.WriteTxnMarkersRequest) (*kmsg.WriteTxnMarkersResponse, error) {
	s.mu.Lock()
	hold := s.hold
	s.reqs = append(s.reqs, sentReq{broker, req})
	s.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failReq != nil {
		return nil, s.failReq
	}
	resp := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	for _, m := range req.Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		for _, t := range m.Topics {
			rt := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				rp.Partition = p
				if s.answer != nil {
					rp.ErrorCode = s.answer(broker, partid.TopicPartition{Topic: t.Topic, Partition: p}, m)
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			rm.Topics = append(rm.Topics, rt)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	return resp, nil
}

func (s *fakeSender) sent() []sentReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// env is a coordinator leading partition 0 of a one-partition
// __transaction_state, with a clock the test moves.
type env struct {
	t      *testing.T
	c      *Coordinator
	log    *fakeLog
	sender *fakeSender
	now    atomic.Int64 // ms
	pids   atomic.Int64
}

func newEnv(t *testing.T) *env {
	return newEnvWith(t, newFakeLog(), 5)
}

// newEnvWith starts a coordinator over log and makes it leader of
// partition 0 at coordinator epoch epoch, waiting for the load.
func newEnvWith(t *testing.T, log *fakeLog, epoch int32) *env {
	e := &env{t: t, log: log, sender: newFakeSender()}
	e.now.Store(1_700_000_000_000)
	e.pids.Store(1000)
	for _, tp := range []partid.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 1}, {Topic: "b", Partition: 0}} {
		e.sender.setLeader(tp, 2)
	}
	cfg := Config{
		NumPartitions:      1,
		MaxTimeout:         15 * time.Minute,
		IDExpiration:       time.Hour,
		AbortInterval:      time.Hour, // the tests call AbortTimedOut themselves
		ExpireInterval:     time.Hour,
		MarkerRetryBackoff: 5 * time.Millisecond,
		WriteTimeout:       5 * time.Second,
		Now:                func() time.Time { return time.UnixMilli(e.now.Load()) },
		Logger:             slog.New(slog.DiscardHandler),
	}
	e.c = New(cfg, log, nil, func(context.Context) (int64, error) { return e.pids.Add(1) - 1, nil }, e.sender)
	e.c.Start()
	t.Cleanup(e.c.Stop)
	if log.ReadHold == nil {
		e.lead(epoch)
	}
	return e
}

func (e *env) lead(epoch int32) {
	e.c.OnLeadershipChange(TopicName, 0, true, epoch)
	testwait.Until(e.t, 5*time.Second, "the partition to load", func() bool {
		_, err := e.c.shardFor("x")
		return err == nil
	})
}

func (e *env) advance(d time.Duration) { e.now.Add(d.Milliseconds()) }

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

func (e *env) init(id string, expected *ProducerIDEpoch) InitResult {
	e.t.Helper()
	return recv(e.t, e.c.InitProducerID(context.Background(), id, 60000, expected))
}

func (e *env) mustInit(id string) InitResult {
	e.t.Helper()
	r := e.init(id, nil)
	if r.Err != nil {
		e.t.Fatalf("init %s: %v", id, r.Err)
	}
	return r
}

func (e *env) add(id string, r InitResult, tps ...partid.TopicPartition) *kerr.Error {
	e.t.Helper()
	return recv(e.t, e.c.AddPartitions(id, r.ProducerID, r.Epoch, tps))
}

func (e *env) end(id string, r InitResult, commit bool) *kerr.Error {
	e.t.Helper()
	return recv(e.t, e.c.EndTxn(id, r.ProducerID, r.Epoch, commit))
}

func (e *env) describe(id string) Description {
	e.t.Helper()
	return e.c.Describe([]string{id})[0]
}

// waitState waits until id's state (not pending) is want, with no
// transition pending.
func (e *env) waitState(id string, want State) {
	e.t.Helper()
	testwait.For(e.t, 5*time.Second, id+" to reach "+want.String(), func() (bool, string) {
		m, err := e.c.lockMeta(id, nil)
		if err != nil || m == nil {
			return false, fmt.Sprint(err)
		}
		defer m.mu.Unlock()
		return m.state == want && !m.hasPending, fmt.Sprintf("state %s pending %v(%s)", m.state, m.hasPending, m.pending)
	})
}

// states lists the states logged for id, in order ("-" for a tombstone).
func (e *env) states(id string) []string {
	var out []string
	for _, r := range e.log.records(e.t, 0) {
		if r.id != id {
			continue
		}
		if r.value == nil {
			out = append(out, "-")
		} else {
			out = append(out, r.value.State.String())
		}
	}
	return out
}

func (e *env) last(id string) *txnrec.Value {
	var v *txnrec.Value
	for _, r := range e.log.records(e.t, 0) {
		if r.id == id {
			v = r.value
		}
	}
	return v
}

var (
	a0 = partid.TopicPartition{Topic: "a", Partition: 0}
	a1 = partid.TopicPartition{Topic: "a", Partition: 1}
	b0 = partid.TopicPartition{Topic: "b", Partition: 0}
)
