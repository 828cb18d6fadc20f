package group

import (
	"fmt"
	"time"

	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/record"
)

// maxDecompressedBatch bounds one decompressed __consumer_offsets batch
// during a load; the coordinator writes small batches, so only a corrupt
// or hostile one comes near it.
const maxDecompressedBatch = 64 << 20

// loadRetry is how long a load waits after a read failure before trying
// again (while still leader).
const loadRetry = time.Second

// replay is what a partition's log says: the last value of every key.
type replay struct {
	offsets map[string]map[TopicPartition]offsetEntry
	groups  map[string]*offsetsrec.GroupValue
}

func newReplay() *replay {
	return &replay{offsets: map[string]map[TopicPartition]offsetEntry{}, groups: map[string]*offsetsrec.GroupValue{}}
}

// apply folds one record in: later records win, tombstones delete.
func (r *replay) apply(logOffset int64, key, value []byte) error {
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

// readAll replays a partition from its log start to the log end offset as
// of the start of the load. It stops early (false) when the shard is
// aborted.
func (c *Coordinator) readAll(sh *shard) (*replay, bool) {
	for {
		r, err := c.tryReadAll(sh)
		if err == nil {
			return r, true
		}
		c.logger.Error("loading group metadata failed; retrying", "partition", sh.partition, "err", err)
		select {
		case <-sh.abort:
			return nil, false
		case <-time.After(loadRetry):
		}
	}
}

func (c *Coordinator) tryReadAll(sh *shard) (*replay, error) {
	start, end, err := c.log.Bounds(sh.partition)
	if err != nil {
		return nil, err
	}
	r := newReplay()
	for pos := start; pos < end; {
		select {
		case <-sh.abort:
			return r, nil
		default:
		}
		buf, err := c.log.Read(sh.partition, pos, c.cfg.LoadBufferSize, end)
		if err != nil {
			return nil, err
		}
		if len(buf) == 0 {
			break // nothing below end from pos on (a gap left by compaction)
		}
		from := pos
		it := record.NewBatchIter(buf)
		for it.Next() {
			h := it.Header()
			next := h.NextOffset()
			if h.IsControl() || next <= pos {
				pos = max(pos, next)
				continue
			}
			b, err := record.ParseBatch(it.Raw(), maxDecompressedBatch)
			if err != nil {
				// A torn tail never reaches here (the log recovered it);
				// a bad batch is skipped rather than blocking the group
				// coordinator for good.
				c.logger.Error("skipping unreadable __consumer_offsets batch", "partition", sh.partition, "offset", h.BaseOffset, "err", err)
				pos = next
				continue
			}
			for i := range b.Records {
				rec := &b.Records[i]
				off := h.OffsetOf(rec)
				if off < pos || rec.Key == nil {
					continue
				}
				if err := r.apply(off, rec.Key, rec.Value); err != nil {
					c.logger.Warn("skipping undecodable __consumer_offsets record", "partition", sh.partition, "offset", off, "err", err)
				}
			}
			pos = next
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("group: reading __consumer_offsets-%d at %d: %w", sh.partition, pos, err)
		}
		if pos == from {
			return nil, fmt.Errorf("group: reading __consumer_offsets-%d: no progress at offset %d", sh.partition, pos)
		}
	}
	return r, nil
}

// loadShard builds the shard's groups from its log and makes it active,
// unless leadership moved on meanwhile.
func (c *Coordinator) loadShard(sh *shard) {
	began := time.Now()
	r, ok := c.readAll(sh)
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
