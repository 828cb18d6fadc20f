package controller

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// onTopicChange handles children changes of /brokers/topics: new topics get
// their partitions initialised; topics whose znode vanished are forgotten.
func (c *Controller) onTopicChange() {
	names, err := c.readTopicNames(true)
	if err != nil {
		c.fail("read topics", err)
		return
	}
	st := c.st
	present := map[string]bool{}
	b := c.newBatch()
	var fresh []string
	for _, name := range names {
		present[name] = true
		if _, ok := st.topics[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	var uninit, offline []tp
	for i, r := range c.readTopics(fresh) {
		name := fresh[i]
		if r.err != nil {
			c.fail("read topic "+name, r.err)
			continue
		}
		t := r.info
		st.topics[name] = t
		c.log.Info("new topic", "topic", name, "partitions", len(t.assignment))
		for _, p := range t.partitionIDs() {
			ps := t.states[p]
			switch {
			case ps == nil || !ps.exists:
				uninit = append(uninit, tp{Topic: name, Partition: p})
			case ps.leader < 0 || !st.isLive(ps.leader):
				offline = append(offline, tp{Topic: name, Partition: p})
			default:
				b.leaderAndISR(st.liveReplicas(tp{Topic: name, Partition: p}), tp{Topic: name, Partition: p}, false)
			}
		}
	}
	// All new topics' partitions in one pipelined write and one
	// LeaderAndIsr per broker.
	c.initializePartitions(b, uninit)
	c.electOffline(b, offline, nil)
	for name := range st.topics {
		if !present[name] && st.deleting[name] == nil {
			delete(st.topics, name)
			b.fullMetadata()
		}
	}
	b.send()
}

// onPartitionModification handles a data change of /brokers/topics/<t>:
// CreatePartitions added partitions to the assignment.
func (c *Controller) onPartitionModification(name string) {
	st := c.st
	t, ok := st.topics[name]
	if !ok {
		return
	}
	fresh, err := c.readTopic(name)
	if err != nil {
		c.fail("read topic "+name, err)
		return
	}
	b := c.newBatch()
	var added []tp
	for _, p := range fresh.partitionIDs() {
		if _, had := t.assignment[p]; had {
			continue
		}
		t.assignment[p] = fresh.assignment[p]
		t.states[p] = fresh.states[p]
		added = append(added, tp{Topic: name, Partition: p})
	}
	if len(added) > 0 {
		c.log.Info("partitions added", "topic", name, "count", len(added))
		c.initializePartitions(b, added)
		b.send()
	}
}

// onDeleteTopics handles children of /admin/delete_topics.
func (c *Controller) onDeleteTopics() {
	names, err := c.readDeleteRequests(true)
	if err != nil {
		c.fail("read topic deletions", err)
		return
	}
	st := c.st
	b := c.newBatch()
	for _, name := range names {
		t, known := st.topics[name]
		switch {
		case !c.cfg.DeleteTopicEnable:
			c.log.Warn("topic deletion requested but delete.topic.enable is false", "topic", name)
			c.removeDeleteRequest(name)
			continue
		case !known:
			c.removeDeleteRequest(name)
			continue
		case st.deleting[name] != nil:
			continue
		}
		pending := map[int32]bool{}
		for _, p := range t.partitionIDs() {
			for _, r := range t.assignment[p] {
				pending[r] = true
			}
			b.markDeleting(tp{Topic: name, Partition: p})
		}
		st.deleting[name] = pending
		c.log.Info("deleting topic", "topic", name, "replicas", sortedKeys(pending))
		c.sendDeletion(b, name, nil)
	}
	b.send()
	for _, name := range names {
		if pending, ok := st.deleting[name]; ok && len(pending) == 0 {
			c.completeDeletion(name)
		}
	}
}

// sendDeletion asks every live replica still holding the topic to delete it;
// replicas on dead brokers are asked when they come back.
func (c *Controller) sendDeletion(b *batch, name string, only map[int32]bool) {
	st := c.st
	t := st.topics[name]
	pending := st.deleting[name]
	gen := c.gen
	for _, broker := range sortedKeys(pending) {
		if !st.isLive(broker) || (only != nil && !only[broker]) {
			continue
		}
		broker := broker
		for _, p := range t.partitionIDs() {
			if slices.Contains(t.assignment[p], broker) {
				b.stopReplica(broker, tp{Topic: name, Partition: p}, true, nil)
			}
		}
		b.onStop[broker] = c.chainStopAck(b.onStop[broker], gen, name, broker)
	}
}

func (c *Controller) chainStopAck(prev func(kmsg.Response, error), gen int, name string, broker int32) func(kmsg.Response, error) {
	return func(resp kmsg.Response, err error) {
		if prev != nil {
			prev(resp, err)
		}
		ok := err == nil
		if r, isStop := resp.(*kmsg.StopReplicaResponse); isStop && r.ErrorCode != 0 {
			ok = false
		}
		c.submit(func() {
			if c.st == nil || c.gen != gen || !ok {
				return
			}
			pending, deleting := c.st.deleting[name]
			if !deleting {
				return
			}
			delete(pending, broker)
			if len(pending) == 0 {
				c.completeDeletion(name)
			}
		})
	}
}

// completeDeletion removes the topic's znodes once every replica deleted
// its log.
func (c *Controller) completeDeletion(name string) {
	if err := c.deleteTopicZnodes(name); err != nil {
		c.fail("delete topic znodes "+name, err)
		return
	}
	delete(c.st.topics, name)
	delete(c.st.deleting, name)
	c.log.Info("topic deleted", "topic", name)
}

// resumeDeletions restarts deletions a previous controller left unfinished.
func (c *Controller) resumeDeletions() { c.onDeleteTopics() }

// resumeDeletionsOn sends pending deletions to brokers that just joined.
func (c *Controller) resumeDeletionsOn(joined map[int32]bool) {
	b := c.newBatch()
	for name, pending := range c.st.deleting {
		for id := range pending {
			if joined[id] {
				c.sendDeletion(b, name, joined)
				break
			}
		}
	}
	b.send()
}
