package group

import (
	"time"

	"kafgo/broker/coordlog"
	"kafgo/broker/group/offsetsrec"
)

// replay is what a partition's log says: the last value of every key.
type replay struct {
	offsets map[string]map[TopicPartition]offsetEntry
	groups  map[string]*offsetsrec.GroupValue
	// pendingTxn holds transactional offset commits by producer id, then
	// group, until that producer's COMMIT marker (which moves them into
	// offsets) or ABORT marker (which drops them); what is left at the
	// end is still pending on an open transaction.
	pendingTxn map[int64]map[string]map[TopicPartition]offsetEntry
}

func newReplay() *replay {
	return &replay{offsets: map[string]map[TopicPartition]offsetEntry{}, groups: map[string]*offsetsrec.GroupValue{},
		pendingTxn: map[int64]map[string]map[TopicPartition]offsetEntry{}}
}

// Record folds one record in: later records win, tombstones delete.
func (r *replay) Record(b coordlog.BatchInfo, logOffset int64, key, value []byte) error {
	rec, err := offsetsrec.Decode(key, value)
	if err != nil {
		return err
	}
	k := rec.Key
	if k.IsOffset() && b.Transactional {
		tp := TopicPartition{Topic: k.Topic, Partition: k.Partition}
		byGroup := r.pendingTxn[b.ProducerID]
		if byGroup == nil {
			byGroup = map[string]map[TopicPartition]offsetEntry{}
			r.pendingTxn[b.ProducerID] = byGroup
		}
		m := byGroup[k.Group]
		if m == nil {
			m = map[TopicPartition]offsetEntry{}
			byGroup[k.Group] = m
		}
		if rec.Tombstone {
			delete(m, tp)
			return nil
		}
		m[tp] = entryOf(rec.Offset, logOffset)
		return nil
	}
	if k.IsOffset() {
		tp := TopicPartition{Topic: k.Topic, Partition: k.Partition}
		if rec.Tombstone {
			if m := r.offsets[k.Group]; m != nil {
				delete(m, tp)
				if len(m) == 0 {
					delete(r.offsets, k.Group)
				}
			}
			return nil
		}
		m := r.offsets[k.Group]
		if m == nil {
			m = map[TopicPartition]offsetEntry{}
			r.offsets[k.Group] = m
		}
		m[tp] = entryOf(rec.Offset, logOffset)
		return nil
	}
	if rec.Tombstone {
		delete(r.groups, k.Group)
		return nil
	}
	r.groups[k.Group] = rec.Group
	return nil
}

func entryOf(v *offsetsrec.OffsetValue, logOffset int64) offsetEntry {
	return offsetEntry{offset: v.Offset, leaderEpoch: v.LeaderEpoch, metadata: v.Metadata,
		commitTime: v.CommitTimestamp, expireTime: v.ExpireTimestamp, logOffset: logOffset}
}

// Marker ends the producer's open transaction: on COMMIT its offsets
// become committed unless a later plain commit is already there.
func (r *replay) Marker(b coordlog.BatchInfo, commit bool) {
	byGroup := r.pendingTxn[b.ProducerID]
	delete(r.pendingTxn, b.ProducerID)
	if !commit {
		return
	}
	for g, pend := range byGroup {
		m := r.offsets[g]
		for tp, e := range pend {
			if m == nil {
				m = map[TopicPartition]offsetEntry{}
				r.offsets[g] = m
			}
			if cur, ok := m[tp]; !ok || cur.logOffset < e.logOffset {
				m[tp] = e
			}
		}
	}
}

// loadShard builds the shard's groups from its log and makes it active,
// unless leadership moved on meanwhile.
func (c *Coordinator) loadShard(sh *shard) {
	began := time.Now()
	r, ok := coordlog.Load(sh.ctx, c.replayer(), sh.partition, newReplay)
	if !ok {
		return
	}
	now := c.now()
	groups := map[string]*group{}
	for id, v := range r.groups {
		groups[id] = c.groupFromRecord(id, sh, v, now)
	}
	for id, offs := range r.offsets {
		g := groups[id]
		if g == nil {
			// Offsets without metadata: a simple consumer's, or a group
			// that never completed a rebalance.
			g = newGroup(id, sh.partition, sh, now)
			g.stateTime = -1
			groups[id] = g
		}
		g.offsets = offs
	}
	for pid, byGroup := range r.pendingTxn {
		for id, pend := range byGroup {
			if len(pend) == 0 {
				continue
			}
			g := groups[id]
			if g == nil {
				g = newGroup(id, sh.partition, sh, now)
				g.stateTime = -1
				groups[id] = g
			}
			m := map[TopicPartition]*txnOffset{}
			for tp, e := range pend {
				m[tp] = &txnOffset{entry: e, appended: true}
			}
			g.pendingTxn[pid] = m
		}
	}
	// Members of loaded Stable groups get one session to find us; their
	// clocks start before anyone can see the group.
	for _, g := range groups {
		g.mu.Lock()
		for _, m := range g.members {
			c.scheduleHeartbeat(g, m, m.sessionTimeout)
		}
		g.mu.Unlock()
	}
	c.mu.Lock()
	for {
		if c.shards[sh.partition] != sh || sh.ctx.Err() != nil {
			c.mu.Unlock()
			for _, g := range groups {
				g.mu.Lock()
				g.transition(Dead, now)
				c.stopGroupTimers(g)
				g.mu.Unlock()
			}
			return
		}
		// Markers written while we read are applied before anyone sees
		// the groups, off c.mu (a group lock is never taken under it).
		markers := sh.markers
		sh.markers = nil
		if len(markers) == 0 {
			break
		}
		c.mu.Unlock()
		for _, mk := range markers {
			for _, g := range groups {
				g.mu.Lock()
				if g.pendingTxn[mk.producerID] != nil {
					g.completeTxn(mk.producerID, mk.commit)
				}
				g.mu.Unlock()
			}
		}
		c.mu.Lock()
	}
	sh.groups = groups
	sh.loading = false
	n := len(groups)
	c.mu.Unlock()
	c.logger.Info("loaded groups of partition", "partition", sh.partition, "groups", n, "took", time.Since(began).Round(time.Millisecond))
}

func (c *Coordinator) replayer() coordlog.Replayer {
	return coordlog.Replayer{Log: c.log, Topic: OffsetsTopic, BufSize: c.cfg.LoadBufferSize, Logger: c.logger}
}

// groupFromRecord rebuilds a group from its last metadata record: with
// members it is Stable at the recorded generation, without it is Empty.
func (c *Coordinator) groupFromRecord(id string, sh *shard, v *offsetsrec.GroupValue, now time.Time) *group {
	g := newGroup(id, sh.partition, sh, now)
	g.generation = v.Generation
	if v.ProtocolType != "" {
		pt := v.ProtocolType
		g.protocolType = &pt
	}
	g.protocol = v.Protocol
	if v.Leader != nil {
		g.leader = *v.Leader
	}
	g.stateTime = v.CurrentStateTimestamp
	for _, mv := range v.Members {
		m := &member{
			id:               mv.MemberID,
			instanceID:       mv.GroupInstanceID,
			clientID:         mv.ClientID,
			clientHost:       mv.ClientHost,
			rebalanceTimeout: ms(mv.RebalanceTimeout),
			sessionTimeout:   ms(mv.SessionTimeout),
			assignment:       mv.Assignment,
		}
		if g.protocolType != nil {
			m.protocolType = *g.protocolType
		}
		if v.Protocol != nil {
			m.protocols = []Protocol{{Name: *v.Protocol, Metadata: mv.Subscription}}
		}
		g.nextSeq++
		m.seq = g.nextSeq
		g.members[m.id] = m
		g.countProtocols(m, 1)
		if m.instanceID != nil {
			g.static[*m.instanceID] = m.id
		}
	}
	if len(g.members) > 0 {
		g.state = Stable
		if _, ok := g.members[g.leader]; !ok {
			g.leader = g.sortedMembers()[0].id
		}
	} else {
		g.state = Empty
	}
	g.computeSubscribed()
	return g
}
