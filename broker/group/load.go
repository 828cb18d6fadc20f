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
}

func newReplay() *replay {
	return &replay{offsets: map[string]map[TopicPartition]offsetEntry{}, groups: map[string]*offsetsrec.GroupValue{}}
}

// Record folds one record in: later records win, tombstones delete.
func (r *replay) Record(_ coordlog.BatchInfo, logOffset int64, key, value []byte) error {
	rec, err := offsetsrec.Decode(key, value)
	if err != nil {
		return err
	}
	k := rec.Key
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
		v := rec.Offset
		m[tp] = offsetEntry{offset: v.Offset, leaderEpoch: v.LeaderEpoch, metadata: v.Metadata,
			commitTime: v.CommitTimestamp, expireTime: v.ExpireTimestamp, logOffset: logOffset}
		return nil
	}
	if rec.Tombstone {
		delete(r.groups, k.Group)
		return nil
	}
	r.groups[k.Group] = rec.Group
	return nil
}

// Marker is a transaction marker; no offsets are transactional yet.
func (r *replay) Marker(coordlog.BatchInfo, bool) {}

// loadShard builds the shard's groups from its log and makes it active,
// unless leadership moved on meanwhile.
func (c *Coordinator) loadShard(sh *shard) {
	began := time.Now()
	r, ok := coordlog.Load(c.replayer(), sh.partition, sh.abort, newReplay)
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
	if c.shards[sh.partition] != sh || isClosed(sh.abort) {
		c.mu.Unlock()
		for _, g := range groups {
			g.mu.Lock()
			g.transition(Dead, now)
			c.stopGroupTimers(g)
			g.mu.Unlock()
		}
		return
	}
	sh.groups = groups
	sh.loading = false
	n := len(groups)
	c.mu.Unlock()
	c.logger.Info("loaded groups of partition", "partition", sh.partition, "groups", n, "took", time.Since(began).Round(time.Millisecond))
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
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
