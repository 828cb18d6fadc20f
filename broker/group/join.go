package group

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func ms(v int32) time.Duration { return time.Duration(v) * time.Millisecond }

func joinError(memberID string, err *kerr.Error) JoinResult {
	return JoinResult{Err: err, MemberID: memberID, Generation: -1}
}

// JoinGroup handles a JoinGroup. The answer comes on the returned channel:
// at once for errors and for members that need not wait, else when the
// rebalance completes, which the rebalance timeout bounds. The channel is
// buffered, so nobody needs to read it.
func (c *Coordinator) JoinGroup(req JoinRequest) <-chan JoinResult {
	ch := make(chan JoinResult, 1)
	if req.Group == "" {
		ch <- joinError(req.MemberID, kerr.InvalidGroupID)
		return ch
	}
	if _, _, err := c.shardFor(req.Group); err != nil {
		ch <- joinError(req.MemberID, err)
		return ch
	}
	if st := ms(req.SessionTimeout); st < c.cfg.MinSessionTimeout || st > c.cfg.MaxSessionTimeout {
		ch <- joinError(req.MemberID, kerr.InvalidSessionTimeout)
		return ch
	}
	unknown := req.MemberID == ""
	g, err := c.lockGroup(req.Group, unknown)
	if err != nil {
		ch <- joinError(req.MemberID, err)
		return ch
	}
	if g == nil {
		ch <- joinError(req.MemberID, kerr.UnknownMemberID)
		return ch
	}
	defer g.mu.Unlock()

	switch {
	case !c.acceptJoiningMember(g, req.MemberID):
		if m, ok := g.members[req.MemberID]; ok {
			c.removeMemberAndUpdate(g, m, "group is full")
		}
		ch <- joinError("", kerr.GroupMaxSizeReached)
	case unknown:
		c.newMemberJoin(g, req, ch)
	default:
		c.currentMemberJoin(g, req, ch)
	}
	if g.state == PreparingRebalance {
		c.tryCompleteJoin(g)
	}
	return ch
}

// acceptJoiningMember is Kafka's group.max.size rule: while collecting
// joins the members that rejoined count (so the last to rejoin of an
// oversized group are turned away); otherwise the members do.
func (c *Coordinator) acceptJoiningMember(g *group, id string) bool {
	switch g.state {
	case PreparingRebalance:
		if m, ok := g.members[id]; ok && m.joinCh != nil {
			return true
		}
		return g.awaiting < c.cfg.MaxSize
	case CompletingRebalance, Stable:
		_, ok := g.members[id]
		return ok || len(g.members) < c.cfg.MaxSize
	}
	return true
}

func (c *Coordinator) newMemberJoin(g *group, req JoinRequest, ch chan JoinResult) {
	if !g.supportsProtocols(req.ProtocolType, req.Protocols) {
		ch <- joinError("", kerr.InconsistentGroupProtocol)
		return
	}
	prefix := req.ClientID
	if req.InstanceID != nil {
		prefix = *req.InstanceID
	}
	id := prefix + "-" + newUUID()
	switch {
	case req.InstanceID != nil:
		if old, ok := g.static[*req.InstanceID]; ok {
			c.logger.Info("static member rejoins with a new member id; replacing the old one", "group", g.id, "instance", *req.InstanceID, "old", old, "new", id)
			c.updateStaticMember(g, old, id, req, ch)
			return
		}
		c.addMemberAndRebalance(g, id, req, ch)
	case req.RequireKnownMemberID:
		// KIP-394: hand out the id and wait for the client to come back
		// with it, so a client retrying a timed-out first join never
		// leaves defunct members behind.
		c.addPending(g, id, ms(req.SessionTimeout))
		ch <- joinError(id, kerr.MemberIDRequired)
	default:
		c.addMemberAndRebalance(g, id, req, ch)
	}
}

func (c *Coordinator) currentMemberJoin(g *group, req JoinRequest, ch chan JoinResult) {
	if !g.supportsProtocols(req.ProtocolType, req.Protocols) {
		ch <- joinError(req.MemberID, kerr.InconsistentGroupProtocol)
		return
	}
	if _, ok := g.pending[req.MemberID]; ok {
		// The second half of a KIP-394 join; pending ids are never static.
		c.addMemberAndRebalance(g, req.MemberID, req, ch)
		return
	}
	if g.staticFenced(req.InstanceID, req.MemberID) {
		ch <- joinError(req.MemberID, kerr.FencedInstanceID)
		return
	}
	m, ok := g.members[req.MemberID]
	if !ok || (req.InstanceID != nil && g.static[*req.InstanceID] == "") {
		ch <- joinError(req.MemberID, kerr.UnknownMemberID)
		return
	}
	switch g.state {
	case PreparingRebalance:
		c.updateMemberAndRebalance(g, m, req, ch, "member rejoined during rebalance")
	case CompletingRebalance:
		if m.matches(req.Protocols) {
			// It probably missed our JoinGroup answer: repeat it.
			ch <- g.joinResult(m, m.id == g.leader)
			return
		}
		c.updateMemberAndRebalance(g, m, req, ch, "member changed its metadata")
	case Stable:
		switch {
		case m.id == g.leader:
			// The leader rejoins to reassign (e.g. topics changed).
			c.updateMemberAndRebalance(g, m, req, ch, "leader rejoined")
		case !m.matches(req.Protocols):
			c.updateMemberAndRebalance(g, m, req, ch, "member changed its metadata")
		default:
			ch <- g.joinResult(m, false)
		}
	default:
		ch <- joinError(req.MemberID, kerr.UnknownMemberID)
	}
}

func (c *Coordinator) addMemberAndRebalance(g *group, id string, req JoinRequest, ch chan JoinResult) {
	m := &member{
		id:               id,
		instanceID:       req.InstanceID,
		clientID:         req.ClientID,
		clientHost:       req.ClientHost,
		rebalanceTimeout: ms(req.RebalanceTimeout),
		sessionTimeout:   ms(req.SessionTimeout),
		protocolType:     req.ProtocolType,
		protocols:        req.Protocols,
		joinCh:           ch,
		isNew:            true,
	}
	if g.state == PreparingRebalance && g.generation == 0 {
		g.newMemberAdded = true
	}
	g.add(m)
	// A member that never completes its join cannot heartbeat; this bounds
	// how long it can hold a rebalance open.
	c.scheduleHeartbeat(g, m, c.cfg.NewMemberJoinTimeout)
	c.maybePrepareRebalance(g, "member "+id+" joined")
}

func (c *Coordinator) updateMemberAndRebalance(g *group, m *member, req JoinRequest, ch chan JoinResult, reason string) {
	g.updateProtocols(m, req.Protocols)
	m.rebalanceTimeout, m.sessionTimeout = ms(req.RebalanceTimeout), ms(req.SessionTimeout)
	m.clientID, m.clientHost = req.ClientID, req.ClientHost
	g.setJoinWaiter(m, ch)
	c.maybePrepareRebalance(g, reason)
}

// replaceStaticMember gives a static member's place to a new member id and
// fences whatever the old id was waiting for.
func (c *Coordinator) replaceStaticMember(g *group, instanceID, oldID, newID string) *member {
	m := g.members[oldID]
	if m.joinCh != nil {
		m.joinCh <- joinError(oldID, kerr.FencedInstanceID)
		m.joinCh = nil
		g.awaiting--
	}
	g.answerSync(m, SyncResult{Err: kerr.FencedInstanceID})
	delete(g.members, oldID)
	m.id = newID
	g.members[newID] = m
	if g.leader == oldID {
		g.leader = newID
	}
	if g.pendingSync[oldID] {
		delete(g.pendingSync, oldID)
		g.pendingSync[newID] = true
	}
	g.static[instanceID] = newID
	return m
}

// updateStaticMember is KIP-345's rejoin of a known instance with an
// unknown member id: in a stable group whose protocol would not change it
// takes the old member's place and assignment without a rebalance.
func (c *Coordinator) updateStaticMember(g *group, oldID, newID string, req JoinRequest, ch chan JoinResult) {
	instance := *req.InstanceID
	prevLeader := g.leader
	m := c.replaceStaticMember(g, instance, oldID, newID)
	c.scheduleHeartbeat(g, m, m.sessionTimeout)
	oldProtocols := m.protocols
	oldRebalance, oldSession := m.rebalanceTimeout, m.sessionTimeout
	g.updateProtocols(m, req.Protocols)
	m.rebalanceTimeout, m.sessionTimeout = ms(req.RebalanceTimeout), ms(req.SessionTimeout)
	g.setJoinWaiter(m, ch)

	switch g.state {
	case Stable:
		if g.protocol == nil || g.selectProtocol() != *g.protocol {
			c.maybePrepareRebalance(g, "static member "+instance+" changed the group's protocol")
			return
		}
		assignment := map[string][]byte{}
		for id, mm := range g.members {
			assignment[id] = mm.assignment
		}
		c.storeGroup(g, assignment, func(err *kerr.Error) {
			if g.members[newID] != m {
				return // replaced again or removed meanwhile
			}
			if err != nil {
				c.logger.Warn("cannot persist a static member's new id; reverting", "group", g.id, "instance", instance, "err", err)
				g.answerJoin(m, JoinResult{Err: err, Generation: g.generation, ProtocolType: g.protocolType, Protocol: g.protocol, LeaderID: prevLeader})
				g.updateProtocols(m, oldProtocols)
				m.rebalanceTimeout, m.sessionTimeout = oldRebalance, oldSession
				if cur, ok := g.static[instance]; ok && cur == newID {
					c.replaceStaticMember(g, instance, newID, oldID)
					c.scheduleHeartbeat(g, m, m.sessionTimeout)
				}
				return
			}
			r := JoinResult{MemberID: newID, Generation: g.generation, ProtocolType: g.protocolType, Protocol: g.protocol, LeaderID: prevLeader}
			if req.SupportsSkipAssignment && g.leader == newID {
				// KIP-814: the leader learns the members but keeps the
				// current assignment.
				r.LeaderID, r.SkipAssignment, r.Members = newID, true, g.currentMembers()
			}
			g.answerJoin(m, r)
		})
	case CompletingRebalance:
		// The leader may already be assigning to the old id: start over.
		c.prepareRebalance(g, "static member "+instance+" rejoined during CompletingRebalance")
	}
}

// newUUID is a random version-4 UUID in Java's text form, as Kafka's member
// ids end with one.
func newUUID() string {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		// crypto/rand does not fail on supported platforms; a time-based
		// id keeps member ids unique if it ever does.
		t := time.Now().UnixNano()
		for i := range u {
			u[i] = byte(t >> (8 * (i % 8)))
		}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
