package group

import "github.com/twmb/franz-go/pkg/kerr"

// Heartbeat handles a Heartbeat: it restarts the member's session and
// tells it whether a rebalance is under way.
func (c *Coordinator) Heartbeat(req HeartbeatRequest) *kerr.Error {
	if req.Group == "" {
		return kerr.InvalidGroupID
	}
	g, err := c.lockGroup(req.Group, false)
	switch {
	case err == kerr.CoordinatorLoadInProgress:
		// Kafka answers blindly while loading: the group's state is not
		// known yet, and the member must not be told to rejoin for it.
		return nil
	case err != nil:
		return err
	case g == nil:
		return kerr.UnknownMemberID
	}
	defer g.mu.Unlock()
	m, ok := g.members[req.MemberID]
	switch {
	case g.staticFenced(req.InstanceID, req.MemberID):
		return kerr.FencedInstanceID
	case !ok:
		return kerr.UnknownMemberID
	case req.Generation != g.generation:
		return kerr.IllegalGeneration
	}
	switch g.state {
	case Empty:
		return kerr.UnknownMemberID
	case PreparingRebalance:
		c.scheduleHeartbeat(g, m, m.sessionTimeout)
		return kerr.RebalanceInProgress
	default:
		// Stable, or CompletingRebalance: clients heartbeat between their
		// JoinGroup answer and their SyncGroup, which is fine (Kafka 2.x+).
		c.scheduleHeartbeat(g, m, m.sessionTimeout)
		return nil
	}
}

// LeaveGroup handles a LeaveGroup for one or more members (v3+ batches,
// and may name a static member by instance id alone).
func (c *Coordinator) LeaveGroup(groupID string, members []LeavingMember) LeaveResult {
	if groupID == "" {
		return LeaveResult{Err: kerr.InvalidGroupID}
	}
	g, err := c.lockGroup(groupID, false)
	if err != nil {
		return LeaveResult{Err: err}
	}
	out := LeaveResult{Members: make([]*kerr.Error, len(members))}
	if g == nil {
		for i := range out.Members {
			out.Members[i] = kerr.UnknownMemberID
		}
		return out
	}
	defer g.mu.Unlock()
	for i, lm := range members {
		out.Members[i] = c.leaveOne(g, lm)
	}
	return out
}

func (c *Coordinator) leaveOne(g *group, lm LeavingMember) *kerr.Error {
	reason := lm.Reason
	if reason == "" {
		reason = "not provided"
	}
	switch {
	case lm.MemberID == "":
		if lm.InstanceID == nil {
			return kerr.UnknownMemberID
		}
		id, ok := g.static[*lm.InstanceID]
		if !ok {
			return kerr.UnknownMemberID
		}
		c.logger.Info("static member removed by LeaveGroup", "group", g.id, "instance", *lm.InstanceID, "member", id, "reason", reason)
		c.removeMemberAndUpdate(g, g.members[id], "member left: "+reason)
		return nil
	case g.pending[lm.MemberID] != nil:
		c.removePending(g, lm.MemberID)
		return nil
	case g.staticFenced(lm.InstanceID, lm.MemberID):
		return kerr.FencedInstanceID
	}
	m, ok := g.members[lm.MemberID]
	if !ok {
		return kerr.UnknownMemberID
	}
	c.logger.Info("member left the group", "group", g.id, "member", m.id, "reason", reason)
	c.removeMemberAndUpdate(g, m, "member left: "+reason)
	return nil
}
