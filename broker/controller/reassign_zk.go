package controller

import (
	"errors"
	"slices"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// writeAssignment writes p's assignment and reassignment fields into the
// topic znode and, on success, into memory. The znode is re-read and
// written conditionally on its version so that partitions added meanwhile
// (CreatePartitions writes the same znode) survive; the write is fenced by
// our controller epoch like every other.
func (c *Controller) writeAssignment(p tp, a partitionAssignment) bool {
	if c.fencedOut {
		return false
	}
	ctx, cancel := c.ctx()
	defer cancel()
	path := znode.TopicPath(p.Topic)
	for attempt := 0; attempt < 3; attempt++ {
		data, stat, err := c.store.Get(ctx, path)
		if err != nil {
			c.fail("read topic "+p.Topic, err)
			return false
		}
		cur, err := znode.ParseTopicAssignment(data)
		if err != nil {
			c.fail("parse topic "+p.Topic, err)
			return false
		}
		// Version 0 lets Marshal pick 2 or 3 (with a topic id): version 1
		// has no reassignment fields.
		cur.Version = 0
		cur.Partitions[p.Partition] = slices.Clone(a.replicas)
		delete(cur.AddingReplicas, p.Partition)
		delete(cur.RemovingReplicas, p.Partition)
		if a.reassigning() {
			cur.AddingReplicas[p.Partition] = slices.Clone(a.adding)
			cur.RemovingReplicas[p.Partition] = slices.Clone(a.removing)
		}
		out, err := cur.Marshal()
		if err != nil {
			c.fail("encode topic "+p.Topic, err)
			return false
		}
		results, err := c.store.Multi(ctx,
			meta.CheckOp{Path: znode.ControllerEpochPath, Version: c.st.epochZkVersion},
			meta.SetOp{Path: path, Data: out, Version: stat.Version},
		)
		if fenced(results, err) {
			c.fencedOut = true
			return false
		}
		if errors.Is(err, meta.ErrBadVersion) {
			continue // changed under us: re-read and apply to the new data
		}
		if err != nil {
			c.fail("write topic "+p.Topic, err)
			return false
		}
		c.st.setPartitionAssignment(p, a)
		return true
	}
	c.fail("write topic "+p.Topic, errorf("topic znode kept changing concurrently"))
	return false
}

// onReassignZnode handles /admin/reassign_partitions, the pre-KIP-455 way to
// ask for reassignments (Kafka 2.x format), and re-arms its watch: ExistsW
// fires on creation when the znode is missing and on data change or
// deletion when it exists. Entries already moving to the same target are
// left alone, so the watch firing on our own pruning writes is harmless;
// invalid entries are logged and pruned. It returns the partitions the
// znode names that are now moving.
func (c *Controller) onReassignZnode() map[tp]bool {
	ctx, cancel := c.ctx()
	defer cancel()
	ok, _, ev, err := c.store.ExistsW(ctx, znode.ReassignPartitionsPath)
	if err != nil {
		c.fail("watch "+znode.ReassignPartitionsPath, err)
		return nil
	}
	c.watch(ev, func() { c.onReassignZnode() })
	if !ok {
		return nil
	}
	data, _, err := c.store.Get(ctx, znode.ReassignPartitionsPath)
	if errors.Is(err, meta.ErrNoNode) {
		return nil
	}
	if err != nil {
		c.fail("read "+znode.ReassignPartitionsPath, err)
		return nil
	}
	req, err := znode.ParseReassignPartitions(data)
	if err != nil {
		// Nothing in it can be acted on, and while it exists no tool can
		// submit a new request: remove it, as a finished request would be.
		c.log.Error("unreadable reassignment request; deleting it", "path", znode.ReassignPartitionsPath, "err", err)
		c.deleteReassignZnode()
		return nil
	}
	started := map[tp]bool{}
	invalid := map[tp]bool{}
	b := c.newBatch()
	for _, e := range req.Partitions {
		p := tp{Topic: e.Topic, Partition: e.Partition}
		cur := c.st.partitionAssignment(p)
		if cur.reassigning() && slices.Equal(cur.target(), e.Replicas) {
			started[p] = true
			continue
		}
		if err := c.reassign(b, p, e.Replicas); err != nil {
			c.log.Warn("reassignment request from "+znode.ReassignPartitionsPath+" refused", "partition", p.String(), "replicas", e.Replicas, "err", err)
			invalid[p] = true
			continue
		}
		started[p] = true
	}
	b.send()
	c.pruneReassignZnode(invalid)
	return started
}

// pruneReassignZnode removes the given partitions from
// /admin/reassign_partitions, deleting the znode when none remain.
func (c *Controller) pruneReassignZnode(done map[tp]bool) {
	if len(done) == 0 || c.fencedOut {
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	for attempt := 0; attempt < 3; attempt++ {
		data, stat, err := c.store.Get(ctx, znode.ReassignPartitionsPath)
		if errors.Is(err, meta.ErrNoNode) {
			return
		}
		if err != nil {
			c.fail("read "+znode.ReassignPartitionsPath, err)
			return
		}
		req, err := znode.ParseReassignPartitions(data)
		if err != nil {
			return // onReassignZnode deletes unreadable requests
		}
		var keep []znode.PartitionReassignment
		for _, e := range req.Partitions {
			if !done[tp{Topic: e.Topic, Partition: e.Partition}] {
				keep = append(keep, e)
			}
		}
		if len(keep) == len(req.Partitions) {
			return
		}
		var op meta.Op = meta.DeleteOp{Path: znode.ReassignPartitionsPath, Version: stat.Version}
		if len(keep) > 0 {
			out, err := znode.ReassignPartitions{Partitions: keep}.Marshal()
			if err != nil {
				c.fail("encode "+znode.ReassignPartitionsPath, err)
				return
			}
			op = meta.SetOp{Path: znode.ReassignPartitionsPath, Data: out, Version: stat.Version}
		}
		results, err := c.store.Multi(ctx, meta.CheckOp{Path: znode.ControllerEpochPath, Version: c.st.epochZkVersion}, op)
		if fenced(results, err) {
			c.fencedOut = true
			return
		}
		if errors.Is(err, meta.ErrBadVersion) || errors.Is(err, meta.ErrNoNode) {
			continue
		}
		if err != nil {
			c.fail("prune "+znode.ReassignPartitionsPath, err)
		}
		return
	}
}

func (c *Controller) deleteReassignZnode() {
	if c.fencedOut {
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	results, err := c.store.Multi(ctx,
		meta.CheckOp{Path: znode.ControllerEpochPath, Version: c.st.epochZkVersion},
		meta.DeleteOp{Path: znode.ReassignPartitionsPath, Version: -1},
	)
	if fenced(results, err) {
		c.fencedOut = true
		return
	}
	if err != nil && !errors.Is(err, meta.ErrNoNode) {
		c.fail("delete "+znode.ReassignPartitionsPath, err)
	}
}
