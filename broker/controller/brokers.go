package controller

import (
	"slices"
	"time"
)

// onBrokerChange handles a change of /brokers/ids: joins, deaths, and
// bounces (the same id re-registered with a new epoch, KIP-380), which count
// as a death followed by a join.
func (c *Controller) onBrokerChange() {
	defer c.timeLeaderElection(time.Now())
	current, err := c.readBrokers(true)
	if err != nil {
		c.fail("read brokers", err)
		return
	}
	st := c.st
	var joined, died []int32
	for id, info := range current {
		old, ok := st.live[id]
		switch {
		case !ok:
			joined = append(joined, id)
		case old.epoch != info.epoch:
			died = append(died, id)
			joined = append(joined, id)
		}
	}
	for id := range st.live {
		if _, ok := current[id]; !ok {
			died = append(died, id)
		}
	}
	slices.Sort(joined)
	slices.Sort(died)
	if len(died) > 0 {
		c.log.Info("brokers left", "brokers", died)
		for _, id := range died {
			delete(st.live, id)
			delete(st.shuttingDown, id)
			c.chans.remove(id)
		}
		c.onBrokerFailure(died)
	}
	if len(joined) > 0 {
		c.log.Info("brokers joined", "brokers", joined)
		for _, id := range joined {
			st.live[id] = current[id]
			c.addChannel(current[id])
		}
		c.onBrokerStartup(joined)
	}
}

// onBrokerFailure moves the dead brokers' leaderships to in-sync replicas
// and takes the dead followers out of the ISRs.
func (c *Controller) onBrokerFailure(dead []int32) {
	st := c.st
	gone := map[int32]bool{}
	for _, id := range dead {
		gone[id] = true
	}
	b := c.newBatch()
	var offline []tp
	for _, p := range st.partitions() {
		if ps := st.partState(p); ps != nil && ps.exists && gone[ps.leader] {
			offline = append(offline, p)
		}
	}
	c.electOffline(b, offline, dead)
	c.removeFromISR(b, gone)
	b.fullMetadata()
	b.send()
}

// onBrokerStartup tells the new brokers everything, gives them their
// replicas, and brings online the partitions they make electable.
func (c *Controller) onBrokerStartup(joined []int32) {
	st := c.st
	isNew := map[int32]bool{}
	for _, id := range joined {
		isNew[id] = true
	}
	b := c.newBatch()
	b.fullMetadata()
	var offline, uninit []tp
	for _, p := range st.partitions() {
		ps := st.partState(p)
		if ps == nil || !ps.exists {
			uninit = append(uninit, p)
			continue
		}
		if ps.leader < 0 || !st.isLive(ps.leader) {
			offline = append(offline, p)
			continue
		}
		var targets []int32
		for _, r := range st.replicas(p) {
			if isNew[r] {
				targets = append(targets, r)
			}
		}
		if len(targets) > 0 {
			b.leaderAndISR(targets, p, false)
		}
	}
	c.initializePartitions(b, uninit)
	c.electOffline(b, offline, nil)
	c.resumeReassignmentsOn(b, isNew)
	b.send()
	c.resumeDeletionsOn(isNew)
}

func (c *Controller) addChannel(info *brokerInfo) {
	addr := ""
	if e, ok := info.endpoint(c.cfg.InterBrokerListener); ok {
		addr = hostPort(e.host, e.port)
	}
	c.chans.add(info.id, addr)
}
