package group

import (
	"github.com/twmb/franz-go/pkg/kerr"
)

// SyncGroup handles a SyncGroup. Followers wait for the leader's
// assignment; the leader's is written to __consumer_offsets first, and
// everyone is answered once it is replicated. A leader that never syncs is
// bounded by the pending-sync timeout, so every answer comes.
func (c *Coordinator) SyncGroup(req SyncRequest) <-chan SyncResult {
	ch := make(chan SyncResult, 1)
	if req.Group == "" {
		ch <- SyncResult{Err: kerr.InvalidGroupID}
		return ch
	}
	g, err := c.lockGroup(req.Group, false)
	switch {
	case err == kerr.CoordinatorLoadInProgress:
		// The rebalance state was lost with the old coordinator: rejoin.
		// (Old clients do not expect COORDINATOR_LOAD_IN_PROGRESS here.)
		ch <- SyncResult{Err: kerr.RebalanceInProgress}
		return ch
	case err != nil:
		ch <- SyncResult{Err: err}
		return ch
	case g == nil:
		ch <- SyncResult{Err: kerr.UnknownMemberID}
		return ch
	}
	defer g.mu.Unlock()

	m, ok := g.members[req.MemberID]
	switch {
	case g.staticFenced(req.InstanceID, req.MemberID):
		ch <- SyncResult{Err: kerr.FencedInstanceID}
		return ch
	case !ok:
		ch <- SyncResult{Err: kerr.UnknownMemberID}
		return ch
	case req.Generation != g.generation:
		ch <- SyncResult{Err: kerr.IllegalGeneration}
		return ch
	case req.ProtocolType != nil && (g.protocolType == nil || *g.protocolType != *req.ProtocolType),
		req.Protocol != nil && (g.protocol == nil || *g.protocol != *req.Protocol):
		ch <- SyncResult{Err: kerr.InconsistentGroupProtocol}
		return ch
	}

	switch g.state {
	case Empty:
		ch <- SyncResult{Err: kerr.UnknownMemberID}
	case PreparingRebalance:
		ch <- SyncResult{Err: kerr.RebalanceInProgress}
	case Stable:
		// A member that missed the answer, or a replaced static member.
		c.removePendingSync(g, m.id)
		ch <- SyncResult{ProtocolType: g.protocolType, Protocol: g.protocol, Assignment: m.assignment}
		c.scheduleHeartbeat(g, m, m.sessionTimeout)
	case CompletingRebalance:
		g.setSyncWaiter(m, ch)
		c.removePendingSync(g, m.id)
		if m.id != g.leader {
			return ch
		}
		// Members the leader left out get an empty assignment; entries for
		// non-members are ignored.
		assignment := make(map[string][]byte, len(g.members))
		for id := range g.members {
			assignment[id] = req.Assignments[id]
		}
		gen := g.generation
		c.logger.Info("assignment received from leader", "group", g.id, "generation", gen, "members", len(g.members))
		c.storeGroup(g, assignment, func(err *kerr.Error) {
			// A member may have joined while the write was in flight.
			if g.state != CompletingRebalance || g.generation != gen {
				return
			}
			if err != nil {
				c.resetAndPropagateAssignmentError(g, err)
				c.maybePrepareRebalance(g, "cannot write group assignment")
				return
			}
			c.setAndPropagateAssignment(g, assignment)
			g.transition(Stable, c.now())
		})
	}
	return ch
}
