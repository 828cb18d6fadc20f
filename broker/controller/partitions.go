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
		ps := &partState{leader: live[0], leaderEpoch: 0, isr: live, controllerEpoch: st.epoch}
		if !c.createState(p, ps) {
			continue
		}
		b.leaderAndISR(c.st.liveReplicas(p), p, true)
	}
}

// electOffline elects leaders for partitions whose leader is gone.
func (c *Controller) electOffline(b *batch, parts []tp, _ []int32) {
	st := c.st
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
				c.changeState(b, p, -1, ps.isr)
			}
			c.log.Warn("no eligible leader for partition", "partition", p.String(), "isr", ps.isr)
			continue
		}
		c.changeState(b, p, leader, isr)
	}
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
	ps := c.st.partState(p)
	next := &partState{
		leader:          leader,
		leaderEpoch:     ps.leaderEpoch + 1,
		isr:             slices.Clone(isr),
		controllerEpoch: c.st.epoch,
		zkVersion:       ps.zkVersion,
		exists:          true,
	}
	if !c.updateState(p, next) {
		return false
	}
	b.leaderAndISR(c.st.liveReplicas(p), p, false)
	return true
}

// removeFromISR drops brokers from the ISR of partitions they follow.
// A partition's ISR never loses its leader here.
func (c *Controller) removeFromISR(b *batch, gone map[int32]bool) {
	st := c.st
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
			c.changeState(b, p, ps.leader, isr)
		}
	}
}
