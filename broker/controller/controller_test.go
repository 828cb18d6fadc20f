package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/topicadmin"
	"kafgo/internal/testing/testwait"
)

// fakeBrokers records the requests controllers send and answers them as a
// healthy broker would.
type fakeBrokers struct {
	mu   sync.Mutex
	sent map[int32][]kmsg.Request
	// hold, when set for a broker, delays every request to it until the
	// channel closes: a broker slow to apply what the controller sends.
	hold map[int32]chan struct{}
}

func (f *fakeBrokers) holdBroker(id int32) (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hold == nil {
		f.hold = map[int32]chan struct{}{}
	}
	ch := make(chan struct{})
	f.hold[id] = ch
	return func() { close(ch) }
}

func (f *fakeBrokers) Send(ctx context.Context, broker int32, _ string, req kmsg.Request) (kmsg.Response, error) {
	f.mu.Lock()
	hold := f.hold[broker]
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sent == nil {
		f.sent = map[int32][]kmsg.Request{}
	}
	f.sent[broker] = append(f.sent[broker], req)
	return req.ResponseKind(), nil
}

// lastLeaderAndISR returns the newest LeaderAndIsr state sent to broker for p.
func (f *fakeBrokers) lastLeaderAndISR(broker int32, p tp) (kmsg.LeaderAndISRRequestTopicPartition, int32, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reqs := f.sent[broker]
	for i := len(reqs) - 1; i >= 0; i-- {
		if r, ok := reqs[i].(*kmsg.LeaderAndISRRequest); ok {
			for _, ts := range r.TopicStates {
				for _, ps := range ts.PartitionStates {
					if ts.Topic == p.Topic && ps.Partition == p.Partition {
						return ps, r.ControllerEpoch, true
					}
				}
			}
		}
	}
	return kmsg.LeaderAndISRRequestTopicPartition{}, 0, false
}

type node struct {
	id    int32
	store meta.Store
	ctl   *Controller
}

type harness struct {
	t     *testing.T
	root  meta.Store
	fake  *fakeBrokers
	nodes map[int32]*node
}

func newHarness(t *testing.T, ids ...int32) *harness {
	t.Helper()
	root, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	ctx := context.Background()
	if err := znode.EnsurePersistentPaths(ctx, root); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, fake: &fakeBrokers{}, nodes: map[int32]*node{}}
	for _, id := range ids {
		h.startBroker(id)
	}
	return h
}

// startBroker registers a broker on its own session and runs its
// controller, its Config adjusted by adjust.
func (h *harness) startBroker(id int32, adjust ...func(*Config)) *node {
	h.t.Helper()
	s, err := h.root.(interface{ NewSession() (meta.Store, error) }).NewSession()
	if err != nil {
		h.t.Fatal(err)
	}
	reg, _ := znode.NewBrokerInfo([]znode.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 9000 + id}}, "", time.Now()).Marshal()
	if _, err := s.Create(context.Background(), znode.BrokerIDPath(id), reg, meta.Ephemeral); err != nil {
		h.t.Fatal(err)
	}
	c := New(Config{BrokerID: id, Store: s, Sender: h.fake, InterBrokerListener: "PLAINTEXT", DeleteTopicEnable: true,
		Logger: slog.New(slog.NewTextHandler(testLog, nil)).With("node", id)})
	for _, f := range adjust {
		f(&c.cfg)
	}
	c.Start()
	n := &node{id: id, store: s, ctl: c}
	h.nodes[id] = n
	h.t.Cleanup(func() { c.Stop(); s.Close() })
	return n
}

// crash ends a broker's session: its registration and, if it held it,
// /controller vanish, as when the process dies.
func (h *harness) crash(id int32) {
	n := h.nodes[id]
	n.ctl.Stop()
	n.store.Close()
	delete(h.nodes, id)
}

func (h *harness) active() *node {
	h.t.Helper()
	var found *node
	testwait.Until(h.t, 10*time.Second, "one active controller", func() bool {
		found = nil
		count := 0
		for _, n := range h.nodes {
			if n.ctl.IsActive() {
				found = n
				count++
			}
		}
		return count == 1
	})
	return found
}

func (h *harness) state(p tp) znode.PartitionState {
	h.t.Helper()
	data, _, err := h.root.Get(context.Background(), znode.PartitionStatePath(p.Topic, p.Partition))
	if err != nil {
		h.t.Fatalf("state of %s: %v", p, err)
	}
	s, err := znode.ParsePartitionState(data)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func TestElectionAndFailover(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	first := h.active()
	if e := first.ctl.Epoch(); e != 1 {
		t.Fatalf("first controller epoch %d, want 1", e)
	}
	for _, n := range h.nodes {
		testwait.Until(t, 5*time.Second, "everyone sees the controller", func() bool { return n.ctl.ActiveID() == first.id })
	}
	h.crash(first.id)
	second := h.active()
	if second.id == first.id || second.ctl.Epoch() != 2 {
		t.Fatalf("after failover: controller %d epoch %d", second.id, second.ctl.Epoch())
	}
	data, _, err := h.root.Get(context.Background(), znode.ControllerEpochPath)
	if err != nil || string(data) != "2" {
		t.Fatalf("/controller_epoch = %q, %v", data, err)
	}
}

func TestTopicCreationAndBrokerFailure(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	admin := &topicadmin.Admin{Store: h.root}
	ctx := context.Background()
	assignment := map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}
	if _, err := admin.CreateTopic(ctx, topicadmin.TopicSpec{Name: "t", Assignment: assignment}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateTopic(ctx, topicadmin.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 1}, false); !isCode(err, kerr.TopicAlreadyExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	for p := int32(0); p < 3; p++ {
		part := tp{Topic: "t", Partition: p}
		testwait.Until(t, 5*time.Second, "partition initialised", func() bool {
			_, _, err := h.root.Get(ctx, znode.PartitionStatePath("t", p))
			return err == nil
		})
		st := h.state(part)
		if st.Leader != assignment[p][0] || !slices.Equal(st.ISR, assignment[p]) || st.LeaderEpoch != 0 {
			t.Fatalf("%s initial state %+v", part, st)
		}
		for _, r := range assignment[p] {
			testwait.Until(t, 5*time.Second, fmt.Sprintf("LeaderAndIsr for %s to %d", part, r), func() bool {
				ps, _, ok := h.fake.lastLeaderAndISR(r, part)
				return ok && ps.Leader == assignment[p][0] && ps.IsNew
			})
		}
	}

	// Broker 2 dies: partition 1 (led by 2) moves to 3, the next in-sync
	// replica in assignment order; 2 leaves every ISR; epochs go up.
	victim := int32(2)
	if ctl.id == victim {
		victim = 3
	}
	h.crash(victim)
	testwait.Until(t, 5*time.Second, "leaders moved off the dead broker", func() bool {
		for p := int32(0); p < 3; p++ {
			st := h.state(tp{Topic: "t", Partition: p})
			if st.Leader == victim || slices.Contains(st.ISR, victim) {
				return false
			}
		}
		return true
	})
	for p := int32(0); p < 3; p++ {
		st := h.state(tp{Topic: "t", Partition: p})
		if st.LeaderEpoch != 1 {
			t.Fatalf("partition %d: leader epoch %d after failure, want 1", p, st.LeaderEpoch)
		}
		var want int32 = -1
		for _, r := range assignment[p] {
			if r != victim {
				want = r
				break
			}
		}
		if st.Leader != want {
			t.Fatalf("partition %d: leader %d, want %d (first live in-sync in assignment order)", p, st.Leader, want)
		}
	}
}

func isCode(err error, code *kerr.Error) bool {
	var ke *kerr.Error
	return err != nil && errorsAs(err, &ke) && ke == code
}

func TestAlterPartitionValidation(t *testing.T) {
	h := newHarness(t, 1, 2)
	ctl := h.active()
	ctx := context.Background()
	if _, err := (&topicadmin.Admin{Store: h.root}).CreateTopic(ctx, topicadmin.TopicSpec{Name: "a", Assignment: map[int32][]int32{0: {1, 2}}}, false); err != nil {
		t.Fatal(err)
	}
	part := tp{Topic: "a", Partition: 0}
	testwait.Until(t, 5*time.Second, "partition initialised", func() bool {
		_, _, err := h.root.Get(ctx, znode.PartitionStatePath("a", 0))
		return err == nil
	})
	_, stat, _ := h.root.Get(ctx, znode.PartitionStatePath("a", 0))
	_, regStat, _ := h.root.Get(ctx, znode.BrokerIDPath(1))

	alter := func(from int32, epoch int64, leaderEpoch, partitionEpoch int32, isr []int32) (*kmsg.AlterPartitionResponse, error) {
		req := kmsg.NewPtrAlterPartitionRequest()
		req.Version = 1
		req.BrokerID, req.BrokerEpoch = from, epoch
		rt := kmsg.NewAlterPartitionRequestTopic()
		rt.Topic = "a"
		rp := kmsg.NewAlterPartitionRequestTopicPartition()
		rp.Partition, rp.LeaderEpoch, rp.PartitionEpoch, rp.NewISR = 0, leaderEpoch, partitionEpoch, isr
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		return ctl.ctl.AlterPartition(ctx, req)
	}
	code := func(r *kmsg.AlterPartitionResponse) int16 {
		if r.ErrorCode != 0 {
			return r.ErrorCode
		}
		return r.Topics[0].Partitions[0].ErrorCode
	}
	_, reg2Stat, _ := h.root.Get(ctx, znode.BrokerIDPath(2))
	for name, tc := range map[string]struct {
		from           int32
		epoch          int64
		leaderEpoch    int32
		partitionEpoch int32
		isr            []int32
		want           *kerr.Error
	}{
		"stale broker epoch":  {1, regStat.Czxid - 1, 0, stat.Version, []int32{1}, kerr.StaleBrokerEpoch},
		"not the leader":      {2, reg2Stat.Czxid, 0, stat.Version, []int32{2}, kerr.NotLeaderForPartition},
		"old leader epoch":    {1, regStat.Czxid, -1, stat.Version, []int32{1}, kerr.FencedLeaderEpoch},
		"wrong partition ep.": {1, regStat.Czxid, 0, stat.Version + 5, []int32{1}, kerr.InvalidUpdateVersion},
		"unassigned replica":  {1, regStat.Czxid, 0, stat.Version, []int32{1, 7}, kerr.IneligibleReplica},
	} {
		r, err := alter(tc.from, tc.epoch, tc.leaderEpoch, tc.partitionEpoch, tc.isr)
		if err != nil {
			t.Fatal(err)
		}
		if got := code(r); got != tc.want.Code {
			t.Errorf("%s: %v, want %v", name, kerr.ErrorForCode(got), tc.want)
		}
	}
	r, err := alter(1, regStat.Czxid, 0, stat.Version, []int32{1})
	if err != nil || code(r) != 0 {
		t.Fatalf("valid shrink: %v %v", err, kerr.ErrorForCode(code(r)))
	}
	got := r.Topics[0].Partitions[0]
	if !slices.Equal(got.ISR, []int32{1}) || got.PartitionEpoch != stat.Version+1 || got.LeaderEpoch != 0 {
		t.Fatalf("answer %+v", got)
	}
	if st := h.state(part); !slices.Equal(st.ISR, []int32{1}) || st.LeaderEpoch != 0 {
		t.Fatalf("stored state %+v", st)
	}

	// The same change sent again with the partition epoch it was made
	// from (the leader lost the answer): the current state, not a refusal.
	r, err = alter(1, regStat.Czxid, 0, stat.Version, []int32{1})
	if err != nil || code(r) != 0 {
		t.Fatalf("retry of an applied change: %v %v", err, kerr.ErrorForCode(code(r)))
	}
	if got := r.Topics[0].Partitions[0]; !slices.Equal(got.ISR, []int32{1}) || got.PartitionEpoch != stat.Version+1 {
		t.Fatalf("retry answer %+v", got)
	}
	// Another change from that stale partition epoch is still refused.
	r, err = alter(1, regStat.Czxid, 0, stat.Version, []int32{1, 2})
	if err != nil || code(r) != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("change from a stale partition epoch: %v %v", err, kerr.ErrorForCode(code(r)))
	}
}

// TestFencedControllerCannotWrite: a controller whose epoch was superseded
// (another took over while it still believed itself active) fails its
// writes on the /controller_epoch check, and resigns.
func TestFencedControllerCannotWrite(t *testing.T) {
	h := newHarness(t, 1)
	n := h.active()
	ctx := context.Background()
	if _, err := h.root.Set(ctx, znode.ControllerEpochPath, []byte("7"), -1); err != nil {
		t.Fatal(err)
	}
	p := tp{Topic: "f", Partition: 0}
	wrote, err := call(ctx, n.ctl, func() (bool, error) {
		ok := n.ctl.createState(p, &partState{leader: 1, isr: []int32{1}, controllerEpoch: n.ctl.st.epoch})
		return ok, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if wrote {
		t.Fatal("a fenced controller wrote a partition state")
	}
	if ok, _, _ := h.root.Exists(ctx, znode.PartitionStatePath("f", 0)); ok {
		t.Fatal("partition state znode exists after a fenced write")
	}
	resigned, _ := call(ctx, n.ctl, func() (bool, error) { return n.ctl.st == nil || n.ctl.st.epoch > 7, nil })
	if !resigned {
		t.Fatal("fenced controller did not resign")
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

var testLog io.Writer = io.Discard

// TestControlledShutdownAnswersOnceApplied: the answer to a controlled
// shutdown waits until the brokers have applied the hand-over (here the new
// leader is slow to take its LeaderAndIsr), so the stopping broker does not
// close its listeners while clients would still be sent back to it.
func TestControlledShutdownAnswersOnceApplied(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	var others []int32
	for _, id := range []int32{1, 2, 3} {
		if id != ctl.id {
			others = append(others, id)
		}
	}
	stopping, next := others[0], others[1]
	part := tp{Topic: "t", Partition: 0}
	if _, err := (&topicadmin.Admin{Store: h.root}).CreateTopic(context.Background(), topicadmin.TopicSpec{Name: "t", Assignment: map[int32][]int32{0: {stopping, next, ctl.id}}}, false); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "the new leader told it follows", func() bool {
		ps, _, ok := h.fake.lastLeaderAndISR(next, part)
		return ok && ps.Leader == stopping
	})

	release := h.fake.holdBroker(next)
	done := make(chan *kmsg.ControlledShutdownResponse, 1)
	go func() {
		req := kmsg.NewPtrControlledShutdownRequest()
		req.BrokerID, req.BrokerEpoch = stopping, -1
		resp, err := ctl.ctl.ControlledShutdown(context.Background(), req)
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	testwait.Until(t, 5*time.Second, "the hand-over written", func() bool { return h.state(part).Leader == next })
	select {
	case <-done:
		t.Fatal("controlled shutdown answered before the new leader applied its LeaderAndIsr")
	case <-time.After(300 * time.Millisecond):
	}
	release()
	select {
	case resp := <-done:
		if resp == nil || resp.ErrorCode != 0 || len(resp.PartitionsRemaining) != 0 {
			t.Fatalf("answer %+v", resp)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after the new leader applied the hand-over")
	}
	if ps, _, ok := h.fake.lastLeaderAndISR(next, part); !ok || ps.Leader != next {
		t.Fatalf("new leader's last LeaderAndIsr %+v", ps)
	}
}

// A topic whose deletion is under way is reported as marked for deletion,
// not as existing, so the operator knows a retry will succeed.
func TestCreateTopicMarkedForDeletion(t *testing.T) {
	h := newHarness(t) // no controller, so nothing completes the deletion
	ctx := context.Background()
	admin := &topicadmin.Admin{Store: h.root}
	// The topic's znode and its deletion mark, as DeleteTopics leaves them
	// until a controller finishes the job.
	if err := meta.EnsurePath(ctx, h.root, znode.TopicPath("t")); err != nil {
		t.Fatal(err)
	}
	if err := meta.EnsurePath(ctx, h.root, znode.DeleteTopicsPath); err != nil {
		t.Fatal(err)
	}
	if _, err := h.root.Create(ctx, znode.DeleteTopicPath("t"), nil, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	_, err := admin.CreateTopic(ctx, topicadmin.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 1}, false)
	if !isCode(err, kerr.TopicAlreadyExists) || !strings.Contains(err.Error(), "is marked for deletion") {
		t.Fatalf("create while marked for deletion: %v", err)
	}
}
