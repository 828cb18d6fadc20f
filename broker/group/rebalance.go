package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Timers. Every callback locks the group and checks a sequence number
// taken when it was armed, so a callback that lost a race with Stop (it
// had already started) does nothing.

// scheduleHeartbeat (re)arms a member's session expiry.
func (c *Coordinator) scheduleHeartbeat(g *group, m *member, timeout time.Duration) {
	if m.hbTimer != nil {
		m.hbTimer.Stop()
	}
	m.hbSeq++
	seq := m.hbSeq
	m.hbTimer = c.clock.AfterFunc(timeout, func() { c.expireHeartbeat(g, m, seq) })
}

func stopHeartbeat(m *member) {
	if m.hbTimer != nil {
		m.hbTimer.Stop()
		m.hbTimer = nil
	}
	m.hbSeq++
}

// expireHeartbeat removes a member whose session ran out. Members waiting
// in a JoinGroup or SyncGroup are spared (Kafka's rule): the rebalance
// timeout governs them, and their session restarts when they are answered.
// A new member is not spared: it cannot heartbeat before its first join
// completes, so NewMemberJoinTimeout is its only bound.
func (c *Coordinator) expireHeartbeat(g *group, m *member, seq uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == Dead || g.members[m.id] != m || m.hbSeq != seq {
		return
	}
	if !m.isNew && (m.joinCh != nil || m.syncCh != nil) {
		return
	}
	c.logger.Info("member session expired; removing it", "group", g.id, "member", m.id, "session_timeout", m.sessionTimeout)
	c.removeMemberAndUpdate(g, m, "session timeout")
}

// addPending registers a KIP-394 member id handed out with
// MEMBER_ID_REQUIRED; it expires unless the client rejoins with it within
// the session timeout.
func (c *Coordinator) addPending(g *group, id string, timeout time.Duration) {
	pm := &pendingMember{}
	g.pending[id] = pm
	pm.timer = c.clock.AfterFunc(timeout, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.state == Dead || g.pending[id] != pm {
			return
		}
		c.removePending(g, id)
	})
}

func (c *Coordinator) removePending(g *group, id string) {
	if pm, ok := g.pending[id]; ok {
		pm.timer.Stop()
		delete(g.pending, id)
	}
	if g.state == PreparingRebalance {
		c.tryCompleteJoin(g)
	}
}

// removeMemberAndUpdate drops a member (leave, expiry, fencing) and moves
// the group on: a stable group rebalances, a rebalancing one may now be
// complete.
func (c *Coordinator) removeMemberAndUpdate(g *group, m *member, reason string) {
	// A new member may be waiting in a JoinGroup; it must hear it is gone.
	g.answerJoin(m, JoinResult{Err: kerr.UnknownMemberID, Generation: -1})
	g.answerSync(m, SyncResult{Err: kerr.UnknownMemberID})
	stopHeartbeat(m)
	g.remove(m.id)
	switch g.state {
	case Stable, CompletingRebalance:
		c.maybePrepareRebalance(g, reason)
	case PreparingRebalance:
		c.tryCompleteJoin(g)
	}
}

func (c *Coordinator) maybePrepareRebalance(g *group, reason string) {
	if g.canRebalance() {
		c.prepareRebalance(g, reason)
	}
}

// prepareRebalance starts collecting JoinGroups. Members waiting for a
// SyncGroup answer are told to rejoin. From Empty the first rebalance waits
// group.initial.rebalance.delay.ms so a starting group's members can all
// arrive (Kafka's InitialDelayedJoin); otherwise it completes when every
// member rejoined or the rebalance timeout passed.
func (c *Coordinator) prepareRebalance(g *group, reason string) {
	if g.state == CompletingRebalance {
		c.resetAndPropagateAssignmentError(g, kerr.RebalanceInProgress)
	}
	c.stopSyncTimer(g)
	fromEmpty := g.state == Empty
	g.transition(PreparingRebalance, c.now())
	c.logger.Info("preparing to rebalance group", "group", g.id, "generation", g.generation, "partition", g.partition, "reason", reason)
	if fromEmpty {
		delay := c.cfg.InitialRebalanceDelay
		c.startInitialDelay(g, delay, max(g.rebalanceTimeout()-delay, 0))
		return
	}
	c.startJoinTimer(g, g.rebalanceTimeout())
	c.tryCompleteJoin(g)
}

// startInitialDelay waits delay; if members joined meanwhile it waits
// again, never beyond the rebalance timeout in total (remaining).
func (c *Coordinator) startInitialDelay(g *group, delay, remaining time.Duration) {
	c.stopJoinTimer(g)
	g.initialDelay = true
	seq := g.joinSeq
	g.joinTimer = c.clock.AfterFunc(delay, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.joinSeq != seq || g.state != PreparingRebalance {
			return
		}
		if g.newMemberAdded && remaining > 0 {
			g.newMemberAdded = false
			next := min(c.cfg.InitialRebalanceDelay, remaining)
			c.startInitialDelay(g, next, max(remaining-delay, 0))
			return
		}
		c.completeJoin(g)
	})
}

func (c *Coordinator) startJoinTimer(g *group, d time.Duration) {
	c.stopJoinTimer(g)
	seq := g.joinSeq
	g.joinTimer = c.clock.AfterFunc(d, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.joinSeq == seq && g.state == PreparingRebalance {
			c.completeJoin(g)
		}
	})
}

func (c *Coordinator) stopJoinTimer(g *group) {
	if g.joinTimer != nil {
		g.joinTimer.Stop()
		g.joinTimer = nil
	}
	g.joinSeq++
	g.initialDelay = false
}

// tryCompleteJoin ends the join phase early once every member rejoined
// (not during the initial delay, which always runs out).
func (c *Coordinator) tryCompleteJoin(g *group) {
	if g.state == PreparingRebalance && !g.initialDelay && g.allMembersJoined() {
		c.completeJoin(g)
	}
}

// completeJoin is Kafka's onCompleteJoin: dynamic members that did not
// rejoin are removed (static ones keep their place until their session
// ends), the next generation starts and every waiting member gets its
// JoinGroup answer, the leader with the member list.
func (c *Coordinator) completeJoin(g *group) {
	c.stopJoinTimer(g)
	g.newMemberAdded = false
	for _, m := range g.sortedMembers() {
		if m.joinCh == nil && !m.static() {
			c.logger.Info("removing member that did not rejoin in time", "group", g.id, "member", m.id)
			g.answerSync(m, SyncResult{Err: kerr.RebalanceInProgress})
			stopHeartbeat(m)
			g.remove(m.id)
		}
	}
	if !g.maybeElectJoinedLeader() && len(g.members) > 0 {
		// Only static members that did not rejoin are left: wait another
		// rebalance timeout for them to come back or expire.
		c.logger.Warn("no member rejoined; extending the rebalance", "group", g.id)
		c.startJoinTimer(g, g.rebalanceTimeout())
		return
	}
	g.initNextGeneration(c.now())
	if g.state == Empty {
		c.logger.Info("group is now empty", "group", g.id, "generation", g.generation, "partition", g.partition)
		c.storeGroup(g, nil, func(err *kerr.Error) {
			if err != nil {
				c.logger.Warn("cannot write empty group metadata", "group", g.id, "err", err)
			}
		})
		return
	}
	c.logger.Info("stabilized group", "group", g.id, "generation", g.generation, "members", len(g.members), "protocol", *g.protocol, "leader", g.leader)
	for _, m := range g.sortedMembers() {
		// The session restarts before the answer leaves, so it is never
		// measured from later than the client's receipt.
		c.scheduleHeartbeat(g, m, m.sessionTimeout)
		m.isNew = false
		g.pendingSync[m.id] = true
		g.answerJoin(m, g.joinResult(m, m.id == g.leader))
	}
	c.schedulePendingSync(g)
}

// schedulePendingSync removes members that got a JoinGroup answer but send
// no SyncGroup within the rebalance timeout; without it a leader that
// heartbeats but never assigns would stall the group forever.
func (c *Coordinator) schedulePendingSync(g *group) {
	c.stopSyncTimer(g)
	seq, gen := g.syncSeq, g.generation
	g.syncTimer = c.clock.AfterFunc(g.rebalanceTimeout(), func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.syncSeq != seq || g.generation != gen || (g.state != CompletingRebalance && g.state != Stable) || len(g.pendingSync) == 0 {
			return
		}
		var gone []string
		for id := range g.pendingSync {
			if m, ok := g.members[id]; ok {
				g.answerSync(m, SyncResult{Err: kerr.RebalanceInProgress})
				stopHeartbeat(m)
				gone = append(gone, id)
			}
			g.remove(id)
		}
		c.logger.Info("removing members that sent no SyncGroup in time", "group", g.id, "members", gone)
		c.prepareRebalance(g, "pending sync expired")
	})
}

func (c *Coordinator) stopSyncTimer(g *group) {
	if g.syncTimer != nil {
		g.syncTimer.Stop()
		g.syncTimer = nil
	}
	g.syncSeq++
}

func (c *Coordinator) removePendingSync(g *group, id string) {
	delete(g.pendingSync, id)
	if len(g.pendingSync) == 0 {
		c.stopSyncTimer(g)
	}
}

// resetAndPropagateAssignmentError clears assignments and fails the
// waiting SyncGroups (a rebalance started, or the assignment write failed).
func (c *Coordinator) resetAndPropagateAssignmentError(g *group, err *kerr.Error) {
	for _, m := range g.members {
		m.assignment = nil
	}
	c.propagateAssignment(g, err)
}

func (c *Coordinator) setAndPropagateAssignment(g *group, assignment map[string][]byte) {
	for id, m := range g.members {
		m.assignment = assignment[id]
	}
	c.propagateAssignment(g, nil)
}

// propagateAssignment answers every waiting SyncGroup and restarts those
// members' sessions: an expiry while they waited was ignored.
func (c *Coordinator) propagateAssignment(g *group, err *kerr.Error) {
	for _, m := range g.sortedMembers() {
		r := SyncResult{Err: err}
		if err == nil {
			r.ProtocolType, r.Protocol, r.Assignment = g.protocolType, g.protocol, m.assignment
		}
		if m.syncCh != nil {
			c.scheduleHeartbeat(g, m, m.sessionTimeout)
			g.answerSync(m, r)
		}
	}
}

// stopGroupTimers cancels everything armed for a group that died.
func (c *Coordinator) stopGroupTimers(g *group) {
	c.stopJoinTimer(g)
	c.stopSyncTimer(g)
	for _, m := range g.members {
		stopHeartbeat(m)
	}
	for id, pm := range g.pending {
		pm.timer.Stop()
		delete(g.pending, id)
	}
}
