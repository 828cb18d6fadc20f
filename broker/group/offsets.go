package group

import (
	"slices"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/group/offsetsrec"
)

func fillErrs(n int, err *kerr.Error) []*kerr.Error {
	out := make([]*kerr.Error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// CommitOffsets handles an OffsetCommit: the offsets are written to
// __consumer_offsets and the answer (one error per offset, in request
// order) comes on the channel once they are replicated; only then does
// OffsetFetch see them.
func (c *Coordinator) CommitOffsets(req CommitRequest) <-chan []*kerr.Error {
	ch := make(chan []*kerr.Error, 1)
	// A group is created only for a simple commit (generation < 0); a
	// member commit to a group we do not know is from an old generation.
	g, err := c.lockGroup(req.Group, req.Generation < 0)
	switch {
	case err != nil:
		ch <- fillErrs(len(req.Offsets), err)
		return ch
	case g == nil:
		ch <- fillErrs(len(req.Offsets), kerr.IllegalGeneration)
		return ch
	}
	defer g.mu.Unlock()
	if err := c.validateCommit(g, req); err != nil {
		ch <- fillErrs(len(req.Offsets), err)
		return ch
	}
	switch g.state {
	case CompletingRebalance:
		// The member has its new generation but not its assignment yet.
		ch <- fillErrs(len(req.Offsets), kerr.RebalanceInProgress)
		return ch
	case Stable, PreparingRebalance:
		// During PreparingRebalance commits are still accepted: the
		// heartbeat tells the member to rejoin.
		if m, ok := g.members[req.MemberID]; ok {
			c.scheduleHeartbeat(g, m, m.sessionTimeout)
		}
	}
	c.doCommit(g, req, ch)
	return ch
}

// validateCommit checks who may commit: members of the current generation,
// or anyone (generation -1, no member id) while the group has no members.
func (c *Coordinator) validateCommit(g *group, req CommitRequest) *kerr.Error {
	if req.Generation >= 0 || req.MemberID != "" || req.InstanceID != nil {
		switch {
		case g.staticFenced(req.InstanceID, req.MemberID):
			return kerr.FencedInstanceID
		case g.members[req.MemberID] == nil:
			return kerr.UnknownMemberID
		case req.Generation != g.generation:
			return kerr.IllegalGeneration
		}
		return nil
	}
	if g.state != Empty {
		return kerr.UnknownMemberID
	}
	return nil
}

func javaLength(s string) int { return len(utf16.Encode([]rune(s))) }

func (c *Coordinator) doCommit(g *group, req CommitRequest, ch chan []*kerr.Error) {
	now := c.now().UnixMilli()
	recs, idx, entries, errs := c.offsetRecords(g, req.Offsets, req.RetentionMs, now)
	if len(recs) == 0 {
		ch <- errs
		return
	}
	fail := func(err *kerr.Error) {
		for _, i := range idx {
			errs[i] = err
		}
		ch <- errs
	}
	batch, err := c.buildBatch(recs, now)
	if err != nil {
		c.logger.Error("cannot build offset commit batch", "group", g.id, "err", err)
		fail(kerr.UnknownServerError)
		return
	}
	res, err := c.log.Append(g.partition, c.cfg.RequiredAcks, batch)
	if err != nil {
		fail(commitError(err))
		return
	}
	for j, i := range idx {
		entries[j].logOffset = res.FirstOffset + int64(j)
		tp := req.Offsets[i].TopicPartition
		g.pendingCommits[tp] = append(g.pendingCommits[tp], entries[j].logOffset)
	}
	c.goAfterWrite(g, res, func(err error) {
		for j, i := range idx {
			tp := req.Offsets[i].TopicPartition
			if !g.finishPending(tp, entries[j].logOffset) {
				continue // the offset was deleted while the write was in flight
			}
			if err != nil || g.state == Dead {
				continue
			}
			if cur, ok := g.offsets[tp]; !ok || cur.logOffset < entries[j].logOffset {
				g.offsets[tp] = entries[j]
			}
		}
		if err != nil {
			c.logger.Warn("offset commit write failed", "group", g.id, "err", err)
			fail(commitError(err))
			return
		}
		ch <- errs
	})
}

// offsetRecords encodes a commit's offsets, one record per offset whose
// metadata fits offset.metadata.max.bytes, with their positions in the
// request and their entries; errs holds the refusals. A retention (-1:
// none) makes a v1 value, the only one that carries an expiry.
func (c *Coordinator) offsetRecords(g *group, offsets []CommitOffset, retentionMs, now int64) (recs []kv, idx []int, entries []offsetEntry, errs []*kerr.Error) {
	errs = make([]*kerr.Error, len(offsets))
	for i, o := range offsets {
		meta := ""
		if o.Metadata != nil {
			meta = *o.Metadata
		}
		if len(meta) > c.cfg.MetadataMaxBytes && javaLength(meta) > c.cfg.MetadataMaxBytes {
			errs[i] = kerr.OffsetMetadataTooLarge
			continue
		}
		e := offsetEntry{offset: o.Offset, leaderEpoch: o.LeaderEpoch, metadata: meta, commitTime: now, expireTime: -1}
		if o.CommitTimestamp != -1 {
			e.commitTime = o.CommitTimestamp
		}
		v := offsetsrec.OffsetValue{Version: offsetsrec.OffsetV3, Offset: e.offset, LeaderEpoch: e.leaderEpoch, Metadata: meta, CommitTimestamp: e.commitTime, ExpireTimestamp: -1}
		if retentionMs != -1 {
			e.expireTime = now + retentionMs
			v = offsetsrec.OffsetValue{Version: offsetsrec.OffsetV1, Offset: e.offset, LeaderEpoch: -1, Metadata: meta, CommitTimestamp: e.commitTime, ExpireTimestamp: e.expireTime}
		}
		key, err := keyOf(offsetsrec.OffsetKey(g.id, o.Topic, o.Partition))
		var val []byte
		if err == nil {
			val, err = v.AppendTo(nil)
		}
		if err != nil {
			errs[i] = kerr.InvalidCommitOffsetSize
			continue
		}
		recs = append(recs, kv{key, val})
		idx = append(idx, i)
		entries = append(entries, e)
	}
	return recs, idx, entries, errs
}

// finishPending retires an in-flight commit, reporting whether it was
// still pending (not cancelled by a deletion).
func (g *group) finishPending(tp TopicPartition, logOffset int64) bool {
	p := g.pendingCommits[tp]
	i := slices.Index(p, logOffset)
	if i < 0 {
		return false
	}
	p = slices.Delete(p, i, i+1)
	if len(p) == 0 {
		delete(g.pendingCommits, tp)
	} else {
		g.pendingCommits[tp] = p
	}
	return true
}

// FetchOffsets handles an OffsetFetch for one group: the committed offset
// of each asked partition (-1 if none), or of every partition when tps is
// nil. Offsets are returned whatever the group's state, since simple
// consumers use them without membership. With requireStable (OffsetFetch
// v7+, KIP-447) a partition with a commit in flight or pending on a
// transaction gets UNSTABLE_OFFSET_COMMIT, so the consumer waits for it.
func (c *Coordinator) FetchOffsets(groupID string, tps []TopicPartition, requireStable bool) ([]FetchedOffset, *kerr.Error) {
	g, err := c.lockGroup(groupID, false)
	if err != nil {
		return nil, err
	}
	var out []FetchedOffset
	if g == nil {
		for _, tp := range tps {
			out = append(out, FetchedOffset{TopicPartition: tp, Offset: -1, LeaderEpoch: -1})
		}
		return out, nil
	}
	defer g.mu.Unlock()
	if tps == nil {
		for tp := range g.offsets {
			tps = append(tps, tp)
		}
		slices.SortFunc(tps, compareTP)
	}
	for _, tp := range tps {
		f := FetchedOffset{TopicPartition: tp, Offset: -1, LeaderEpoch: -1}
		if requireStable && g.hasPendingOffset(tp) {
			f.Err = kerr.UnstableOffsetCommit
		} else if e, ok := g.offsets[tp]; ok {
			f.Offset, f.LeaderEpoch, f.Metadata = e.offset, e.leaderEpoch, e.metadata
		}
		out = append(out, f)
	}
	return out, nil
}

func compareTP(a, b TopicPartition) int {
	switch {
	case a.Topic < b.Topic:
		return -1
	case a.Topic > b.Topic:
		return 1
	}
	return int(a.Partition) - int(b.Partition)
}

// DeleteOffsets handles an OffsetDelete: an Empty group's offsets go; a
// consumer group with members keeps those of topics it subscribes to
// (GROUP_SUBSCRIBED_TO_TOPIC); any other non-empty group refuses
// (NON_EMPTY_GROUP). The answer comes once the tombstones are replicated.
func (c *Coordinator) DeleteOffsets(groupID string, tps []TopicPartition) (<-chan []*kerr.Error, *kerr.Error) {
	g, err := c.lockGroup(groupID, false)
	switch {
	case err != nil:
		return nil, err
	case g == nil:
		return nil, kerr.GroupIDNotFound
	}
	defer g.mu.Unlock()
	errs := make([]*kerr.Error, len(tps))
	var eligible []TopicPartition
	var idx []int
	switch {
	case g.state == Empty:
		eligible, idx = tps, indexes(len(tps))
	case g.protocolType != nil && *g.protocolType == consumerProtocolType:
		for i, tp := range tps {
			if g.subscribed != nil && g.subscribed[tp.Topic] {
				errs[i] = kerr.GroupSubscribedToTopic
				continue
			}
			eligible = append(eligible, tp)
			idx = append(idx, i)
		}
	default:
		return nil, kerr.NonEmptyGroup
	}
	ch := make(chan []*kerr.Error, 1)
	if len(eligible) == 0 {
		ch <- errs
		return ch, nil
	}
	var removed []TopicPartition
	g.dropPendingTxn(eligible)
	for _, tp := range eligible {
		delete(g.pendingCommits, tp)
		if _, ok := g.offsets[tp]; ok {
			delete(g.offsets, tp)
			removed = append(removed, tp)
		}
	}
	c.logger.Info("deleted offsets", "group", g.id, "partitions", len(removed))
	dropGroup := g.state == Empty && !g.hasOffsets()
	if dropGroup {
		c.dropGroup(g)
	}
	c.writeTombstones(g, removed, dropGroup, func(err error) {
		for _, i := range idx {
			errs[i] = commitError(err)
		}
		ch <- errs
	})
	return ch, nil
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
