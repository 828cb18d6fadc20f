package controller

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/internal/testing/testwait"
)

func TestReassignTo(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		cur                        partitionAssignment
		target                     []int32
		replicas, adding, removing []int32
	}{
		{"disjoint move", partitionAssignment{replicas: []int32{1, 2}}, []int32{3, 4}, []int32{3, 4, 1, 2}, []int32{3, 4}, []int32{1, 2}},
		{"one replica swapped", partitionAssignment{replicas: []int32{1, 2, 3}}, []int32{1, 2, 4}, []int32{1, 2, 4, 3}, []int32{4}, []int32{3}},
		{"shrink", partitionAssignment{replicas: []int32{1, 2, 3}}, []int32{2, 1}, []int32{2, 1, 3}, []int32{}, []int32{3}},
		{"grow", partitionAssignment{replicas: []int32{1}}, []int32{1, 2}, []int32{1, 2}, []int32{2}, []int32{}},
		{"same set reordered", partitionAssignment{replicas: []int32{1, 2}}, []int32{2, 1}, []int32{2, 1}, []int32{}, []int32{}},
		// A new target while a move is in flight is taken against the
		// original replicas, not the union.
		{"replace in flight", partitionAssignment{replicas: []int32{3, 4, 1, 2}, adding: []int32{3, 4}, removing: []int32{1, 2}}, []int32{1, 3}, []int32{1, 3, 2}, []int32{3}, []int32{2}},
		{"cancel in flight", partitionAssignment{replicas: []int32{3, 4, 1, 2}, adding: []int32{3, 4}, removing: []int32{1, 2}}, []int32{1, 2}, []int32{1, 2}, []int32{}, []int32{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cur.reassignTo(tc.target)
			if !slices.Equal(got.replicas, tc.replicas) || !slices.Equal(got.adding, tc.adding) || !slices.Equal(got.removing, tc.removing) {
				t.Fatalf("reassignTo(%v) = %+v, want replicas %v adding %v removing %v", tc.target, got, tc.replicas, tc.adding, tc.removing)
			}
			if !slices.Equal(got.target(), tc.target) {
				t.Fatalf("target of the result %v, want %v", got.target(), tc.target)
			}
		})
	}
}

// TestReassignmentMovesPartitionAndLeader walks a disjoint move [1,2] ->
// [3,4] through both phases, driving the ISR as the leader would.
func TestReassignmentMovesPartitionAndLeader(t *testing.T) {
	h := newHarness(t, 1, 2, 3, 4)
	ctl := h.active()
	h.createTopic("mv", map[int32][]int32{0: {1, 2}, 1: {2, 1}})
	p := tp{Topic: "mv", Partition: 0}
	if err := h.reassign(ctl, p, []int32{3, 4}); err != nil {
		t.Fatal(err)
	}

	// Phase 1: the union with adding/removing in the topic znode (v3, the
	// topic id kept), a new leader epoch, the state to every replica and
	// IsNew to the new ones.
	a := h.topicZnode("mv")
	if !slices.Equal(a.Partitions[0], []int32{3, 4, 1, 2}) || !slices.Equal(a.AddingReplicas[0], []int32{3, 4}) || !slices.Equal(a.RemovingReplicas[0], []int32{1, 2}) {
		t.Fatalf("topic znode during the move: %+v", a)
	}
	if a.Version != 3 || a.TopicID.IsZero() || !slices.Equal(a.Partitions[1], []int32{2, 1}) || len(a.AddingReplicas[1]) != 0 {
		t.Fatalf("topic znode lost other fields: %+v", a)
	}
	if st := h.state(p); st.Leader != 1 || st.LeaderEpoch != 1 || !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("state during the move: %+v", st)
	}
	for _, r := range []int32{1, 2, 3, 4} {
		ps := h.waitLeaderAndISR(r, p, 1)
		if !slices.Equal(ps.Replicas, []int32{3, 4, 1, 2}) || !slices.Equal(ps.AddingReplicas, []int32{3, 4}) || !slices.Equal(ps.RemovingReplicas, []int32{1, 2}) {
			t.Fatalf("LeaderAndIsr to %d: %+v", r, ps)
		}
		if isNew := r == 3 || r == 4; ps.IsNew != isNew {
			t.Fatalf("LeaderAndIsr to %d: IsNew %v", r, ps.IsNew)
		}
	}
	testwait.Until(t, 5*time.Second, "metadata lists the union", func() bool {
		rs, ok := h.fake.lastMetadataReplicas(2, p)
		return ok && slices.Equal(rs, []int32{3, 4, 1, 2})
	})
	if got := h.listed(ctl); !slices.Equal(got, []string{"mv-0:[3 4 1 2]/[3 4]/[1 2]"}) {
		t.Fatalf("listed %v", got)
	}

	// One new replica in sync is not enough.
	h.setISR(ctl, p, []int32{1, 2, 3})
	if a := h.topicZnode("mv"); len(a.AddingReplicas[0]) == 0 {
		t.Fatalf("completed with replica 4 out of sync: %+v", a)
	}

	// Phase 2: the whole target in sync. The leader leaves for the first
	// in-sync target replica, the ISR is cut to the target, the removed
	// replicas are deleted and the znode holds only the target.
	h.setISR(ctl, p, []int32{1, 2, 3, 4})
	if st := h.state(p); st.Leader != 3 || st.LeaderEpoch != 2 || !slices.Equal(st.ISR, []int32{3, 4}) {
		t.Fatalf("state after completion: %+v", st)
	}
	if a := h.topicZnode("mv"); !slices.Equal(a.Partitions[0], []int32{3, 4}) || len(a.AddingReplicas) != 0 || len(a.RemovingReplicas) != 0 {
		t.Fatalf("topic znode after completion: %+v", a)
	}
	for _, r := range []int32{3, 4} {
		if ps := h.waitLeaderAndISR(r, p, 2); !slices.Equal(ps.Replicas, []int32{3, 4}) || ps.Leader != 3 || len(ps.AddingReplicas) != 0 {
			t.Fatalf("final LeaderAndIsr to %d: %+v", r, ps)
		}
	}
	for _, r := range []int32{1, 2} {
		testwait.Until(t, 5*time.Second, fmt.Sprintf("StopReplica(delete) to %d", r), func() bool { return h.fake.stopped(r, p) })
		if ps, _, _ := h.fake.lastLeaderAndISR(r, p); ps.LeaderEpoch > 1 {
			t.Fatalf("removed replica %d was sent the final state %+v", r, ps)
		}
	}
	for _, r := range []int32{3, 4} {
		if h.fake.stopped(r, p) {
			t.Fatalf("target replica %d was stopped", r)
		}
	}
	if got := h.listed(ctl); len(got) != 0 {
		t.Fatalf("listed after completion: %v", got)
	}
}

// TestReassignmentKeepsLeaderInTarget: a leader that stays keeps leading,
// and only the leaving replica is deleted.
func TestReassignmentKeepsLeaderInTarget(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	h.createTopic("keep", map[int32][]int32{0: {1, 2}})
	p := tp{Topic: "keep", Partition: 0}
	if err := h.reassign(ctl, p, []int32{1, 3}); err != nil {
		t.Fatal(err)
	}
	h.setISR(ctl, p, []int32{1, 2, 3})
	if st := h.state(p); st.Leader != 1 || !slices.Equal(st.ISR, []int32{1, 3}) || st.LeaderEpoch != 2 {
		t.Fatalf("state after completion: %+v", st)
	}
	testwait.Until(t, 5*time.Second, "StopReplica(delete) to 2", func() bool { return h.fake.stopped(2, p) })
	if h.fake.stopped(1, p) || h.fake.stopped(3, p) {
		t.Fatal("a target replica was stopped")
	}
}

// TestReassignmentToSubsetCompletesAtOnce: dropping a replica needs no
// catching up, so both phases happen in one request.
func TestReassignmentToSubsetCompletesAtOnce(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	h.createTopic("shrink", map[int32][]int32{0: {1, 2, 3}})
	p := tp{Topic: "shrink", Partition: 0}
	if err := h.reassign(ctl, p, []int32{2, 3}); err != nil {
		t.Fatal(err)
	}
	if a := h.topicZnode("shrink"); !slices.Equal(a.Partitions[0], []int32{2, 3}) || len(a.RemovingReplicas) != 0 {
		t.Fatalf("topic znode: %+v", a)
	}
	if st := h.state(p); st.Leader != 2 || !slices.Equal(st.ISR, []int32{2, 3}) {
		t.Fatalf("state: %+v", st)
	}
	testwait.Until(t, 5*time.Second, "StopReplica(delete) to 1", func() bool { return h.fake.stopped(1, p) })
}

// TestReassignmentCancelAndReplace: a replacing target is taken against the
// original replicas and stops what the old one added; a cancel returns to
// the original replicas; cancelling nothing is an error.
func TestReassignmentCancelAndReplace(t *testing.T) {
	h := newHarness(t, 1, 2, 3, 4)
	ctl := h.active()
	h.createTopic("cx", map[int32][]int32{0: {1, 2}})
	p := tp{Topic: "cx", Partition: 0}
	if err := h.reassign(ctl, p, nil); err != kerr.NoReassignmentInProgress {
		t.Fatalf("cancel with nothing in flight: %v", err)
	}
	if err := h.reassign(ctl, p, []int32{3, 4}); err != nil {
		t.Fatal(err)
	}
	h.setISR(ctl, p, []int32{1, 2, 4})
	if err := h.reassign(ctl, p, []int32{1, 3}); err != nil {
		t.Fatal(err)
	}
	a := h.topicZnode("cx")
	if !slices.Equal(a.Partitions[0], []int32{1, 3, 2}) || !slices.Equal(a.AddingReplicas[0], []int32{3}) || !slices.Equal(a.RemovingReplicas[0], []int32{2}) {
		t.Fatalf("replaced move: %+v", a)
	}
	if st := h.state(p); !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("replica 4, no longer wanted, stays in the ISR: %+v", st)
	}
	testwait.Until(t, 5*time.Second, "StopReplica(delete) to 4", func() bool { return h.fake.stopped(4, p) })

	if err := h.reassign(ctl, p, nil); err != nil {
		t.Fatal(err)
	}
	if a := h.topicZnode("cx"); !slices.Equal(a.Partitions[0], []int32{1, 2}) || len(a.AddingReplicas) != 0 || len(a.RemovingReplicas) != 0 {
		t.Fatalf("after cancel: %+v", a)
	}
	if st := h.state(p); st.Leader != 1 || !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("state after cancel: %+v", st)
	}
	testwait.Until(t, 5*time.Second, "StopReplica(delete) to 3", func() bool { return h.fake.stopped(3, p) })
	if h.fake.stopped(1, p) || h.fake.stopped(2, p) {
		t.Fatal("an original replica was stopped by the cancel")
	}
	if got := h.listed(ctl); len(got) != 0 {
		t.Fatalf("listed after cancel: %v", got)
	}
}

func TestReassignmentValidation(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	h.createTopic("v", map[int32][]int32{0: {1, 2}})
	for _, tc := range []struct {
		name     string
		p        tp
		replicas []int32
		want     *kerr.Error
	}{
		{"unknown topic", tp{Topic: "nope", Partition: 0}, []int32{1}, kerr.UnknownTopicOrPartition},
		{"unknown partition", tp{Topic: "v", Partition: 7}, []int32{1}, kerr.UnknownTopicOrPartition},
		{"duplicate replicas", tp{Topic: "v", Partition: 0}, []int32{1, 1}, kerr.InvalidReplicaAssignment},
		{"empty list", tp{Topic: "v", Partition: 0}, []int32{}, kerr.InvalidReplicaAssignment},
		{"unknown broker", tp{Topic: "v", Partition: 0}, []int32{1, 9}, kerr.InvalidReplicaAssignment},
		{"negative id", tp{Topic: "v", Partition: 0}, []int32{1, -3}, kerr.InvalidReplicaAssignment},
		{"cancel of nothing", tp{Topic: "v", Partition: 0}, nil, kerr.NoReassignmentInProgress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.reassign(ctl, tc.p, tc.replicas); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	if a := h.topicZnode("v"); !slices.Equal(a.Partitions[0], []int32{1, 2}) || len(a.AddingReplicas) != 0 {
		t.Fatalf("a refused request changed the assignment: %+v", a)
	}
	// Brokers that are not controller say so.
	for _, n := range h.nodes {
		if n != ctl {
			resp, err := n.ctl.AlterPartitionAssignments(context.Background(), reassignReq("v", map[int32][]int32{0: {2, 3}}))
			if err != nil || resp.ErrorCode != kerr.NotController.Code {
				t.Fatalf("broker %d: %v code %d", n.id, err, resp.ErrorCode)
			}
		}
	}
}

// TestReassignmentResumesAfterFailover: a new controller finds the move in
// the topic znode, re-sends it and completes it.
func TestReassignmentResumesAfterFailover(t *testing.T) {
	all := []int32{1, 2, 3, 4}
	h := newHarness(t, all...)
	first := h.active()
	o := others(all, first.id) // the replicas live through the failover
	h.createTopic("fo", map[int32][]int32{0: {o[0], o[1]}})
	p := tp{Topic: "fo", Partition: 0}
	if err := h.reassign(first, p, []int32{o[2], o[1]}); err != nil {
		t.Fatal(err)
	}
	h.crash(first.id)
	second := h.active()
	// The new controller bumps the epoch again and tells the new replica.
	if ps := h.waitLeaderAndISR(o[2], p, 2); !ps.IsNew || !slices.Equal(ps.AddingReplicas, []int32{o[2]}) {
		t.Fatalf("resumed LeaderAndIsr to the new replica: %+v", ps)
	}
	if got := h.listed(second); len(got) != 1 {
		t.Fatalf("the new controller lists %v", got)
	}
	h.setISR(second, p, []int32{o[0], o[1], o[2]})
	if st := h.state(p); st.Leader != o[2] || !slices.Equal(st.ISR, []int32{o[1], o[2]}) {
		t.Fatalf("state after completion: %+v (want leader %d)", st, o[2])
	}
	if a := h.topicZnode("fo"); !slices.Equal(a.Partitions[0], []int32{o[2], o[1]}) || len(a.AddingReplicas) != 0 {
		t.Fatalf("topic znode: %+v", a)
	}
	testwait.Until(t, 5*time.Second, "StopReplica(delete) to the removed replica", func() bool { return h.fake.stopped(o[0], p) })
}

// TestLegacyReassignZnode: a request written to /admin/reassign_partitions
// starts; an invalid entry is pruned at once; the znode goes when the last
// move completes.
func TestLegacyReassignZnode(t *testing.T) {
	h := newHarness(t, 1, 2, 3)
	ctl := h.active()
	h.createTopic("zk", map[int32][]int32{0: {1, 2}, 1: {2, 3}})
	ctx := context.Background()
	req := znode.ReassignPartitions{Partitions: []znode.PartitionReassignment{
		{Topic: "zk", Partition: 0, Replicas: []int32{2, 3}, LogDirs: []string{"any", "any"}},
		{Topic: "zk", Partition: 1, Replicas: []int32{3, 1}},
		{Topic: "missing", Partition: 0, Replicas: []int32{1}},
	}}
	data, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.root.Create(ctx, znode.ReassignPartitionsPath, data, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	entries := func() []string {
		data, _, err := h.root.Get(ctx, znode.ReassignPartitionsPath)
		if err != nil {
			return nil
		}
		r, err := znode.ParseReassignPartitions(data)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range r.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", e.Topic, e.Partition))
		}
		return out
	}
	testwait.Until(t, 5*time.Second, "both moves started and the bad entry pruned", func() bool {
		return len(h.listed(ctl)) == 2 && slices.Equal(entries(), []string{"zk-0", "zk-1"})
	})
	h.setISR(ctl, tp{Topic: "zk", Partition: 0}, []int32{1, 2, 3})
	testwait.Until(t, 5*time.Second, "zk-0 pruned", func() bool { return slices.Equal(entries(), []string{"zk-1"}) })
	h.setISR(ctl, tp{Topic: "zk", Partition: 1}, []int32{2, 3, 1})
	testwait.Until(t, 5*time.Second, "znode deleted", func() bool {
		ok, _, err := h.root.Exists(ctx, znode.ReassignPartitionsPath)
		return err == nil && !ok
	})
	a := h.topicZnode("zk")
	if !slices.Equal(a.Partitions[0], []int32{2, 3}) || !slices.Equal(a.Partitions[1], []int32{3, 1}) || len(a.AddingReplicas) != 0 {
		t.Fatalf("topic znode: %+v", a)
	}
	if st := h.state(tp{Topic: "zk", Partition: 1}); st.Leader != 3 || !slices.Equal(st.ISR, []int32{3, 1}) {
		t.Fatalf("zk-1 state: %+v", st)
	}
	// The watch is armed again: a new request is picked up.
	req = znode.ReassignPartitions{Partitions: []znode.PartitionReassignment{{Topic: "zk", Partition: 0, Replicas: []int32{3}}}}
	data, _ = req.Marshal()
	if _, err := h.root.Create(ctx, znode.ReassignPartitionsPath, data, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "second request done", func() bool {
		ok, _, _ := h.root.Exists(ctx, znode.ReassignPartitionsPath)
		return !ok && slices.Equal(h.topicZnode("zk").Partitions[0], []int32{3})
	})
}
