package controller

import (
	"context"
	"errors"
	"net"
	"strconv"

	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/meta/znode"
)

func hostPort(host string, port int32) string {
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// loadBrokers reads the live brokers on becoming controller.
func (c *Controller) loadBrokers() error {
	current, err := c.readBrokers(true)
	if err != nil {
		return err
	}
	for id, info := range current {
		c.st.live[id] = info
		c.addChannel(info)
	}
	return nil
}

// readBrokers reads /brokers/ids (setting a child watch when watch is
// true) and every registration with its czxid, the broker epoch.
func (c *Controller) readBrokers(watch bool) (map[int32]*brokerInfo, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	if err := meta.EnsurePath(ctx, c.store, znode.BrokerIDsPath); err != nil {
		return nil, err
	}
	var ids []string
	var err error
	if watch {
		var ev <-chan meta.Event
		ids, _, ev, err = c.store.ChildrenW(ctx, znode.BrokerIDsPath)
		if err == nil {
			c.watch(ev, c.onBrokerChange)
		}
	} else {
		ids, _, err = c.store.Children(ctx, znode.BrokerIDsPath)
	}
	if err != nil {
		return nil, err
	}
	out := map[int32]*brokerInfo{}
	for _, s := range ids {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			continue
		}
		id := int32(n)
		data, stat, err := c.store.Get(ctx, znode.BrokerIDPath(id))
		if errors.Is(err, meta.ErrNoNode) {
			continue // it left between the listing and the read
		}
		if err != nil {
			return nil, err
		}
		reg, err := znode.ParseBrokerInfo(data)
		if err != nil {
			c.log.Error("unreadable broker registration", "broker", id, "err", err)
			continue
		}
		info := &brokerInfo{id: id, epoch: stat.Czxid}
		if reg.Rack != "" {
			rack := reg.Rack
			info.rack = &rack
		}
		for _, e := range reg.Endpoints {
			info.endpoints = append(info.endpoints, endpoint{listener: e.Listener, host: e.Host, port: e.Port})
		}
		out[id] = info
	}
	return out, nil
}

// loadTopics reads every topic, its assignment and partition states, and
// sets the topic and deletion watches. The topics are read concurrently
// (see parallel): a new controller of a large cluster reads tens of
// thousands of znodes before it can elect anyone.
func (c *Controller) loadTopics() error {
	names, err := c.readTopicNames(true)
	if err != nil {
		return err
	}
	for i, t := range c.readTopics(names) {
		if t.err != nil {
			c.fail("read topic "+names[i], t.err)
			continue
		}
		c.st.topics[names[i]] = t.info
	}
	return nil
}

func (c *Controller) readTopicNames(watch bool) ([]string, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	if err := meta.EnsurePath(ctx, c.store, znode.BrokerTopicsPath); err != nil {
		return nil, err
	}
	if !watch {
		names, _, err := c.store.Children(ctx, znode.BrokerTopicsPath)
		return names, err
	}
	names, _, ev, err := c.store.ChildrenW(ctx, znode.BrokerTopicsPath)
	if err != nil {
		return nil, err
	}
	c.watch(ev, c.onTopicChange)
	return names, nil
}

// readTopic reads a topic's assignment (with a data watch, for added
// partitions) and the state of each partition.
func (c *Controller) readTopic(name string) (*topicInfo, error) {
	r := c.readTopics([]string{name})[0]
	return r.info, r.err
}

type topicRead struct {
	info *topicInfo
	err  error
}

// readTopics reads topics concurrently, their partition states too, then
// sets each topic's data watch on the event goroutine.
func (c *Controller) readTopics(names []string) []topicRead {
	out := make([]topicRead, len(names))
	evs := make([]<-chan meta.Event, len(names))
	parallel(len(names), func(i int) {
		ctx, cancel := c.ctx()
		defer cancel()
		name := names[i]
		data, _, ev, err := c.store.GetW(ctx, znode.TopicPath(name))
		if err != nil {
			out[i].err = err
			return
		}
		evs[i] = ev
		a, err := znode.ParseTopicAssignment(data)
		if err != nil {
			out[i].err = err
			return
		}
		t := &topicInfo{name: name, id: a.TopicID, assignment: a.Partitions, states: map[int32]*partState{},
			adding: a.AddingReplicas, removing: a.RemovingReplicas}
		out[i].info, out[i].err = t, c.readStates(ctx, t)
	})
	for i, ev := range evs {
		if ev != nil {
			name := names[i]
			c.watch(ev, func() { c.onPartitionModification(name) })
		}
	}
	return out
}

// readStates reads the state of each of t's partitions (store only).
func (c *Controller) readStates(ctx context.Context, t *topicInfo) error {
	ids := make([]int32, 0, len(t.assignment))
	for p := range t.assignment {
		ids = append(ids, p)
	}
	states := make([]*partState, len(ids))
	errs := make([]error, len(ids))
	read := func(i int) {
		data, stat, err := c.store.Get(ctx, znode.PartitionStatePath(t.name, ids[i]))
		if errors.Is(err, meta.ErrNoNode) {
			return
		}
		if err != nil {
			errs[i] = err
			return
		}
		s, err := znode.ParsePartitionState(data)
		if err != nil {
			c.log.Error("unreadable partition state; treating the partition as new", "topic", t.name, "partition", ids[i], "err", err)
			return
		}
		states[i] = &partState{leader: s.Leader, leaderEpoch: s.LeaderEpoch, isr: s.ISR, controllerEpoch: s.ControllerEpoch, zkVersion: stat.Version, exists: true}
	}
	// Topics are already read in parallel; a topic with many partitions
	// reads them in parallel too.
	if len(ids) > 8 {
		parallel(len(ids), read)
	} else {
		for i := range ids {
			read(i)
		}
	}
	for i, ps := range states {
		if errs[i] != nil {
			return errs[i]
		}
		if ps != nil {
			t.states[ids[i]] = ps
		}
	}
	return nil
}

func (c *Controller) readDeleteRequests(watch bool) ([]string, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	if err := meta.EnsurePath(ctx, c.store, znode.DeleteTopicsPath); err != nil {
		return nil, err
	}
	if !watch {
		names, _, err := c.store.Children(ctx, znode.DeleteTopicsPath)
		return names, err
	}
	names, _, ev, err := c.store.ChildrenW(ctx, znode.DeleteTopicsPath)
	if err != nil {
		return nil, err
	}
	c.watch(ev, c.onDeleteTopics)
	return names, nil
}

func (c *Controller) removeDeleteRequest(name string) {
	ctx, cancel := c.ctx()
	defer cancel()
	if err := c.store.Delete(ctx, znode.DeleteTopicPath(name), -1); err != nil && !errors.Is(err, meta.ErrNoNode) {
		c.fail("remove delete request "+name, err)
	}
}

func encodeState(ps *partState) ([]byte, error) {
	return znode.PartitionState{ControllerEpoch: ps.controllerEpoch, Leader: ps.leader, LeaderEpoch: ps.leaderEpoch, ISR: ps.isr}.Marshal()
}

// createState writes a new partition's state znode, fenced by our epoch.
func (c *Controller) createState(p tp, ps *partState) bool {
	return c.writeStates([]*stateChange{{p: p, next: ps, create: true}})[0]
}

// updateState replaces a partition's state, conditional on its zkVersion
// and fenced by our epoch. On success the in-memory state is the new one.
func (c *Controller) updateState(p tp, next *partState) bool {
	return c.writeStates([]*stateChange{{p: p, next: next}})[0]
}

func (c *Controller) reloadState(p tp) bool {
	ctx, cancel := c.ctx()
	defer cancel()
	data, stat, err := c.store.Get(ctx, znode.PartitionStatePath(p.Topic, p.Partition))
	if err != nil {
		return false
	}
	s, err := znode.ParsePartitionState(data)
	if err != nil {
		return false
	}
	c.st.topics[p.Topic].states[p.Partition] = &partState{leader: s.Leader, leaderEpoch: s.LeaderEpoch, isr: s.ISR, controllerEpoch: s.ControllerEpoch, zkVersion: stat.Version, exists: true}
	return true
}

// deleteTopicZnodes removes a deleted topic's assignment, states and config
// and finally the deletion request.
func (c *Controller) deleteTopicZnodes(name string) error {
	ctx, cancel := c.ctx()
	defer cancel()
	for _, path := range []string{znode.TopicPath(name), dynconfig.TopicPath(name), znode.DeleteTopicPath(name)} {
		if err := meta.DeleteRecursive(ctx, c.store, path); err != nil && !errors.Is(err, meta.ErrNoNode) {
			return err
		}
	}
	return nil
}
