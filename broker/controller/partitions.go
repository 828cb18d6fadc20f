package controller

import (
	"slices"
)

// eligible reports whether a broker may lead or join an ISR now: live and
// not shutting down.
func (s *state) eligible(id int32) bool { return s.isLive(id) && !s.shuttingDown[id] }

// initializePartitions brings new partitions online: the first live
// assigned replica leads, the live replicas form the ISR, epoch 0.
func (c *Controller) initializePartitions(b *batch, parts []tp) {
	st := c.st
	var changes []*stateChange
	for _, p := range parts {
		var live []int32
		for _, r := range st.replicas(p) {
			if st.eligible(r) {
				live = append(live, r)
			}
		}
		if len(live) == 0 {
			c.log.Warn("new partition has no live replica; it stays offline until one joins", "partition", p.String())
			continue
		}
		changes = append(changes, &stateChange{p: p, next: &partState{leader: live[0], leaderEpoch: 0, isr: live, controllerEpoch: st.epoch}, create: true})
	}
	for i, ok := range c.writeStates(changes) {
		if ok {
			b.leaderAndISR(c.st.liveReplicas(changes[i].p), changes[i].p, true)
		}
	}
}

// electOffline elects leaders for partitions whose leader is gone.
func (c *Controller) electOffline(b *batch, parts []tp, _ []int32) {
	st := c.st
	var changes []change
	for _, p := range parts {
		ps := st.partState(p)
		if ps == nil || !ps.exists {
			continue
		}
		leader, isr, ok := c.offlineLeader(p, ps)
		if !ok {
			if ps.leader != -1 {
				// Record that the partition has no leader, keeping the ISR
				// so a returning in-sync replica can be elected cleanly.
				changes = append(changes, change{p, -1, ps.isr})
			}
			c.log.Warn("no eligible leader for partition", "partition", p.String(), "isr", ps.isr)
			continue
		}
		changes = append(changes, change{p, leader, isr})
	}
	c.changeStates(b, changes)
}

// offlineLeader applies Kafka's OfflinePartitionLeaderElection.
func (c *Controller) offlineLeader(p tp, ps *partState) (int32, []int32, bool) {
	st := c.st
	for _, r := range st.replicas(p) {
		if st.eligible(r) && slices.Contains(ps.isr, r) {
			var isr []int32
			for _, i := range ps.isr {
				if st.eligible(i) {
					isr = append(isr, i)
				}
			}
			return r, isr, true
		}
	}
	if c.cfg.UncleanLeaderElection(p.Topic) {
		for _, r := range st.replicas(p) {
			if st.eligible(r) {
				c.log.Warn("unclean leader election: an out-of-sync replica becomes leader; data may be lost", "partition", p.String(), "leader", r)
				c.cfg.Metrics.UncleanElection()
				return r, []int32{r}, true
			}
		}
	}
	return -1, nil, false
}

// changeState writes a controller-made change (new leader or ISR): the
// leader epoch goes up by one, the new state goes to the live replicas.
func (c *Controller) changeState(b *batch, p tp, leader int32, isr []int32) bool {
	return c.changeStates(b, []change{{p, leader, isr}})[0]
}

// change is a controller-made change of one partition's leader and ISR.
type change struct {
	p      tp
	leader int32
	isr    []int32
}

// changeStates is changeState for many partitions, their writes
// pipelined (see writeStates); it returns which succeeded.
func (c *Controller) changeStates(b *batch, cs []change) []bool {
	writes := make([]*stateChange, len(cs))
	for i, ch := range cs {
		ps := c.st.partState(ch.p)
		writes[i] = &stateChange{p: ch.p, next: &partState{
			leader:          ch.leader,
			leaderEpoch:     ps.leaderEpoch + 1,
			isr:             slices.Clone(ch.isr),
			controllerEpoch: c.st.epoch,
			zkVersion:       ps.zkVersion,
			exists:          true,
		}}
	}
	ok := c.writeStates(writes)
	for i, done := range ok {
		if done {
			b.leaderAndISR(c.st.liveReplicas(cs[i].p), cs[i].p, false)
		}
	}
	return ok
}

// removeFromISR drops brokers from the ISR of partitions they follow.
// A partition's ISR never loses its leader here.
func (c *Controller) removeFromISR(b *batch, gone map[int32]bool) {
	st := c.st
	var changes []change
	for _, p := range st.partitions() {
		ps := st.partState(p)
		if ps == nil || !ps.exists || ps.leader < 0 || gone[ps.leader] {
			continue
		}
		var isr []int32
		changed := false
		for _, r := range ps.isr {
			if gone[r] && r != ps.leader {
				changed = true
				continue
			}
			isr = append(isr, r)
		}
		if changed {
			changes = append(changes, change{p, ps.leader, isr})
		}
	}
	c.changeStates(b, changes)
}
