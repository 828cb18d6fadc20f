package group

import (
	"github.com/twmb/franz-go/pkg/kerr"
)

// ExpireOffsets is the periodic cleanup (Kafka's cleanupGroupMetadata):
// offsets past offsets.retention.minutes are removed with tombstones, and
// Empty groups left with no offsets are deleted with a group tombstone.
//
// An offset's age counts from its commit, except in an Empty group with a
// protocol type, where it counts from when the group became Empty
// (KIP-211): a group that stops consuming keeps its positions for the full
// retention. Offsets committed with an explicit retention (OffsetCommit
// v2-v4) expire at their own time. A stable consumer group keeps the
// offsets of the topics it subscribes to.
func (c *Coordinator) ExpireOffsets() {
	shards, _ := c.activeShards()
	total, groups := 0, 0
	for _, sh := range shards {
		for _, g := range c.groupsOf(sh) {
			n, dropped := c.expireGroup(g)
			total += n
			if dropped {
				groups++
			}
		}
	}
	if total > 0 || groups > 0 {
		c.logger.Info("removed expired offsets", "offsets", total, "groups", groups)
	}
}

func (c *Coordinator) expireGroup(g *group) (expired int, dropped bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == Dead {
		return 0, false
	}
	now := c.now().UnixMilli()
	retention := c.cfg.Retention.Milliseconds()
	var base func(e offsetEntry) int64
	var keep map[string]bool
	switch {
	case g.protocolType != nil && g.state == Empty:
		base = func(e offsetEntry) int64 {
			if g.stateTime >= 0 {
				return g.stateTime
			}
			return e.commitTime
		}
	case g.protocolType != nil && *g.protocolType == consumerProtocolType && g.subscribed != nil && g.state == Stable:
		base = func(e offsetEntry) int64 { return e.commitTime }
		keep = g.subscribed
	case g.protocolType == nil:
		// A simple consumer's group: by commit time.
		base = func(e offsetEntry) int64 { return e.commitTime }
	}
	var gone []TopicPartition
	if base != nil {
		for tp, e := range g.offsets {
			if keep[tp.Topic] || len(g.pendingCommits[tp]) > 0 {
				continue
			}
			if e.expireTime >= 0 && now >= e.expireTime || e.expireTime < 0 && now-base(e) >= retention {
				gone = append(gone, tp)
			}
		}
	}
	for _, tp := range gone {
		delete(g.offsets, tp)
	}
	dropped = g.state == Empty && !g.hasOffsets()
	if dropped {
		c.logger.Info("deleting empty group without offsets", "group", g.id)
		c.dropGroup(g)
	}
	if len(gone) > 0 || dropped {
		// Like Kafka, nobody waits: a lost tombstone only means the
		// offset expires again after the next load.
		c.writeTombstones(g, gone, dropped, nil)
	}
	return len(gone), dropped
}

// DeleteGroups handles a DeleteGroups: only Empty groups can go
// (NON_EMPTY_GROUP otherwise); their offsets and metadata get tombstones.
// The answer (one error per group, in order) comes once those are
// replicated.
func (c *Coordinator) DeleteGroups(ids []string) <-chan []*kerr.Error {
	ch := make(chan []*kerr.Error, 1)
	errs := make([]*kerr.Error, len(ids))
	waits := 0
	done := make(chan struct{}, len(ids))
	for i, id := range ids {
		g, err := c.lockGroup(id, false)
		switch {
		case err != nil:
			errs[i] = err
			continue
		case g == nil:
			errs[i] = kerr.GroupIDNotFound
			continue
		case g.state != Empty:
			errs[i] = kerr.NonEmptyGroup
			g.mu.Unlock()
			continue
		}
		var tps []TopicPartition
		for tp := range g.offsets {
			tps = append(tps, tp)
		}
		clear(g.offsets)
		clear(g.pendingCommits)
		clear(g.pendingTxn)
		c.dropGroup(g)
		c.logger.Info("deleted group", "group", id, "offsets", len(tps))
		waits++
		i := i
		c.writeTombstones(g, tps, true, func(err error) {
			errs[i] = commitError(err)
			done <- struct{}{}
		})
		g.mu.Unlock()
	}
	if waits == 0 {
		ch <- errs
		return ch
	}
	// Not in c.wg: it only gathers the writes' callbacks, which always
	// run (a stopping coordinator cancels their waits).
	go func() {
		for range waits {
			<-done
		}
		ch <- errs
	}()
	return ch
}
