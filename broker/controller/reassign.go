package controller

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Partition reassignment, KIP-455 semantics on the ZooKeeper-era controller
// (Kafka's KafkaController.onPartitionReassignment), for a partition moving
// from its original replicas OS to the target replicas RS:
//
//  1. The topic znode gets assignment RS ∪ OS (RS first), adding_replicas
//     RS−OS and removing_replicas OS−RS; the leader epoch is bumped and the
//     state goes to every replica of the union, so the new ones create their
//     logs and start fetching from the leader.
//  2. Once every replica of RS is in the ISR (checked after each ISR change
//     and when a broker joins), the leader moves to RS if it is outside it
//     or shutting down, the ISR becomes ISR ∩ RS with a new leader epoch, the
//     state goes to RS, the removed replicas get StopReplica(delete), and
//     the topic znode gets assignment RS with no adding/removing, last:
//     until then it is the only durable record of OS, so a controller that
//     takes over halfway finds the move still in flight and completes it.
//
// A cancel is a reassignment back to OS; a new target while a move is in
// flight is computed against OS too, and the replicas the previous target
// added that the new one does not need are stopped and deleted at once.

// partitionAssignment is one partition's replicas with its reassignment
// fields (Kafka's ReplicaAssignment).
type partitionAssignment struct {
	replicas []int32 // the full set: RS ∪ OS while moving
	adding   []int32 // RS − OS
	removing []int32 // OS − RS
}

func (a partitionAssignment) reassigning() bool { return len(a.adding) > 0 || len(a.removing) > 0 }

// target is RS: the replicas that remain when the move completes.
func (a partitionAssignment) target() []int32 { return without(a.replicas, a.removing) }

// origin is OS: the replicas before the move started.
func (a partitionAssignment) origin() []int32 { return without(a.replicas, a.adding) }

// reassignTo is the assignment that moves the partition from its origin to
// target (Kafka's ReplicaAssignment.reassignTo).
func (a partitionAssignment) reassignTo(target []int32) partitionAssignment {
	origin := a.origin()
	union := slices.Clone(target)
	for _, r := range origin {
		if !slices.Contains(union, r) {
			union = append(union, r)
		}
	}
	return partitionAssignment{replicas: union, adding: without(union, origin), removing: without(union, target)}
}

func (a partitionAssignment) equal(b partitionAssignment) bool {
	return slices.Equal(a.replicas, b.replicas) && slices.Equal(a.adding, b.adding) && slices.Equal(a.removing, b.removing)
}

// without returns the members of xs not in drop, in xs's order (never nil,
// so an emptied list encodes as [] rather than null).
func without(xs, drop []int32) []int32 {
	out := []int32{}
	for _, x := range xs {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

func subset(xs, of []int32) bool {
	for _, x := range xs {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

func (s *state) partitionAssignment(p tp) partitionAssignment {
	t, ok := s.topics[p.Topic]
	if !ok {
		return partitionAssignment{}
	}
	return partitionAssignment{replicas: t.assignment[p.Partition], adding: t.adding[p.Partition], removing: t.removing[p.Partition]}
}

// setPartitionAssignment changes the in-memory assignment only; the topic
// znode is written by writeAssignment.
func (s *state) setPartitionAssignment(p tp, a partitionAssignment) {
	t := s.topics[p.Topic]
	if t.adding == nil {
		t.adding = map[int32][]int32{}
	}
	if t.removing == nil {
		t.removing = map[int32][]int32{}
	}
	t.assignment[p.Partition] = slices.Clone(a.replicas)
	delete(t.adding, p.Partition)
	delete(t.removing, p.Partition)
	if a.reassigning() {
		t.adding[p.Partition] = slices.Clone(a.adding)
		t.removing[p.Partition] = slices.Clone(a.removing)
	}
}

// reassigningPartitions lists the partitions with a move in flight, in
// topic/partition order, leaving out topics being deleted.
func (s *state) reassigningPartitions() []tp {
	var out []tp
	for _, p := range s.partitions() {
		if s.deleting[p.Topic] == nil && s.partitionAssignment(p).reassigning() {
			out = append(out, p)
		}
	}
	return out
}

// reassign starts, replaces or (target nil) cancels the reassignment of p,
// answering with Kafka's per-partition errors.
func (c *Controller) reassign(b *batch, p tp, target []int32) error {
	st := c.st
	cur := st.partitionAssignment(p)
	if target != nil {
		if err := c.validateTarget(cur, target); err != nil {
			return err
		}
	}
	ps := st.partState(p)
	switch {
	case len(cur.replicas) == 0 || st.deleting[p.Topic] != nil:
		return kafkaerr.New(kerr.UnknownTopicOrPartition, "The partition does not exist.")
	case ps == nil || !ps.exists:
		// Never initialised (no replica was live at creation): there is no
		// state to move yet.
		return kafkaerr.New(kerr.LeaderNotAvailable, "The partition %s has no leader state yet; retry once it is online.", p)
	case target == nil && !cur.reassigning():
		return kafkaerr.New(kerr.NoReassignmentInProgress, "%s", kerr.NoReassignmentInProgress.Description)
	case target == nil:
		target = cur.origin()
	}
	next := cur.reassignTo(target)
	// Replicas an earlier target added that this one does not keep.
	unneeded := without(cur.replicas, next.replicas)
	if !next.equal(cur) {
		if !c.writeAssignment(p, next) {
			return kafkaerr.New(kerr.UnknownServerError, "The assignment of %s could not be written to the metadata store.", p)
		}
	}
	c.log.Info("partition reassignment", "partition", p.String(), "target", target, "origin", next.origin(),
		"adding", next.adding, "removing", next.removing)
	c.advanceReassignment(b, p, unneeded)
	return nil
}

// validateTarget applies Kafka's checks of a requested replica list: not
// empty, no duplicates, valid ids, and every replica it adds live.
func (c *Controller) validateTarget(cur partitionAssignment, target []int32) error {
	seen := map[int32]bool{}
	for _, r := range target {
		if r < 0 {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Invalid broker id in replica list: %s", javaList(target))
		}
		if seen[r] {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Duplicate replica ids in partition reassignment replica list: %s", javaList(target))
		}
		seen[r] = true
	}
	if len(target) == 0 {
		return kafkaerr.New(kerr.InvalidReplicaAssignment, "Empty replica list specified in partition reassignment.")
	}
	adding := cur.reassignTo(target).adding
	for _, r := range adding {
		if !c.st.isLive(r) {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Replica assignment has brokers that are not alive. Replica list: %s, live broker list: %s",
				javaList(adding), javaList(c.st.liveIDs()))
		}
	}
	return nil
}

// javaList renders ids as Java's List.toString does, the form Kafka's
// messages use.
func javaList(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// advanceReassignment takes p's move one step: phase 1 (bring the new
// replicas in) while the target is not all in sync, else phase 2 (finish).
// stop holds replicas already dropped from the assignment (a replaced or
// cancelled move) that must be stopped and deleted.
func (c *Controller) advanceReassignment(b *batch, p tp, stop []int32) {
	st := c.st
	a := st.partitionAssignment(p)
	ps := st.partState(p)
	if ps == nil || !ps.exists {
		return
	}
	if a.reassigning() && !subset(a.target(), ps.isr) {
		leader, isr := c.reassignmentLeader(ps, a.replicas)
		if !c.changeState(b, p, leader, isr) {
			c.log.Warn("reassignment: partition state write failed; the move resumes on the next trigger", "partition", p.String())
			return
		}
		// IsNew tells the added replicas they start from an empty log.
		var added []int32
		for _, r := range a.adding {
			if st.isLive(r) {
				added = append(added, r)
			}
		}
		b.leaderAndISR(added, p, true)
		c.stopReplicas(b, p, stop)
		return
	}
	c.completeReassignment(b, p, a, stop)
}

// completeReassignment is phase 2. The state znode is written before the
// topic znode: see the top of this file.
func (c *Controller) completeReassignment(b *batch, p tp, a partitionAssignment, stop []int32) {
	st := c.st
	target := a.target()
	done := partitionAssignment{replicas: target}
	leader, isr := c.reassignmentLeader(st.partState(p), target)
	// The in-memory assignment goes first so that the LeaderAndIsr batched
	// by changeState reaches only the target replicas.
	st.setPartitionAssignment(p, done)
	if !c.changeState(b, p, leader, isr) {
		st.setPartitionAssignment(p, a)
		c.log.Warn("reassignment: partition state write failed; completion is retried on the next trigger", "partition", p.String())
		return
	}
	if !c.writeAssignment(p, done) {
		st.setPartitionAssignment(p, a)
		c.log.Warn("reassignment: topic znode write failed; completion is retried on the next trigger", "partition", p.String())
		return
	}
	removed := slices.Clone(a.removing)
	for _, r := range stop {
		if !slices.Contains(removed, r) {
			removed = append(removed, r)
		}
	}
	c.stopReplicas(b, p, removed)
	c.log.Info("partition reassignment completed", "partition", p.String(), "replicas", target, "leader", leader, "removed", removed)
	c.pruneReassignZnode(map[tp]bool{p: true})
}

// reassignmentLeader picks the leader and ISR for p restricted to replicas:
// the current leader if it stays, is in sync and eligible, else the first
// eligible in-sync replica in replicas order (Kafka's
// ReassignPartitionLeaderElection), else none.
func (c *Controller) reassignmentLeader(ps *partState, replicas []int32) (int32, []int32) {
	isr := []int32{}
	for _, r := range ps.isr {
		if slices.Contains(replicas, r) {
			isr = append(isr, r)
		}
	}
	if ps.leader >= 0 && slices.Contains(isr, ps.leader) && c.st.eligible(ps.leader) {
		return ps.leader, isr
	}
	for _, r := range replicas {
		if c.st.eligible(r) && slices.Contains(isr, r) {
			return r, isr
		}
	}
	return -1, isr
}

// stopReplicas asks live brokers to stop and delete their replica of p;
// replicas on dead brokers keep their files, as in Kafka.
func (c *Controller) stopReplicas(b *batch, p tp, replicas []int32) {
	for _, r := range replicas {
		if c.st.isLive(r) {
			b.stopReplica(r, p, true, nil)
		}
	}
}

// onReassignmentISRChange completes p's move if the ISR change just applied
// brought the whole target in sync.
func (c *Controller) onReassignmentISRChange(b *batch, p tp) {
	a := c.st.partitionAssignment(p)
	if ps := c.st.partState(p); a.reassigning() && ps != nil && subset(a.target(), ps.isr) {
		c.advanceReassignment(b, p, nil)
	}
}

// resumeReassignmentsOn restarts the moves that involve brokers that just
// joined, so they get the state and start (or resume) fetching.
func (c *Controller) resumeReassignmentsOn(b *batch, joined map[int32]bool) {
	for _, p := range c.st.reassigningPartitions() {
		if slices.ContainsFunc(c.st.partitionAssignment(p).replicas, func(r int32) bool { return joined[r] }) {
			c.advanceReassignment(b, p, nil)
		}
	}
}

// resumeReassignments is the failover step: requests left in
// /admin/reassign_partitions first, then every move the topic znodes record
// as in flight.
func (c *Controller) resumeReassignments() {
	started := c.onReassignZnode()
	b := c.newBatch()
	for _, p := range c.st.reassigningPartitions() {
		if !started[p] {
			c.advanceReassignment(b, p, nil)
		}
	}
	b.send()
}
