package controller

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// Two requests Kafka 2.x brokers and tools leave in ZooKeeper, which a
// kafgo controller taking over a Kafka cluster (or sharing it during a
// rolling replacement) handles as Kafka's controller does
// (KafkaController's PreferredReplicaElectionHandler and
// IsrChangeNotificationHandler):
//
//   - /admin/preferred_replica_election, written by
//     kafka-preferred-replica-election.sh --zookeeper: elect the preferred
//     replica of each partition named, then delete the znode.
//   - /isr_change_notification/isr_change_<seq>, written by Kafka leaders
//     below inter.broker.protocol.version 2.7 after they changed a
//     partition's ISR in its state znode themselves: re-read those states,
//     send UpdateMetadata, then delete the notifications.

// followAdminZnodes handles both now (the failover step) and re-arms
// their watches.
func (c *Controller) followAdminZnodes() {
	c.onPreferredElectionZnode()
	c.onIsrChangeNotifications()
}

func (c *Controller) onPreferredElectionZnode() {
	ctx, cancel := c.ctx()
	defer cancel()
	path := znode.PreferredReplicaElectionPath
	ok, _, ev, err := c.store.ExistsW(ctx, path)
	if err != nil {
		c.fail("watch "+path, err)
		return
	}
	c.watch(ev, c.onPreferredElectionZnode)
	if !ok {
		return
	}
	data, _, err := c.store.Get(ctx, path)
	if errors.Is(err, meta.ErrNoNode) {
		return
	}
	if err != nil {
		c.fail("read "+path, err)
		return
	}
	req, err := znode.ParsePreferredReplicaElection(data)
	if err != nil {
		c.log.Error("unreadable preferred replica election request; deleting it", "path", path, "err", err)
	} else {
		b := c.newBatch()
		for _, e := range req.Partitions {
			p := tp{Topic: e.Topic, Partition: e.Partition}
			if code, msg := c.elect1(b, p, ElectionPreferred); code != 0 && code != kerr.ElectionNotNeeded.Code {
				c.log.Info("preferred replica election from "+path, "partition", p.String(), "error_code", code, "detail", msg)
			}
		}
		b.send()
	}
	c.deleteAdminZnode(path)
}

func (c *Controller) onIsrChangeNotifications() {
	ctx, cancel := c.ctx()
	defer cancel()
	root := znode.IsrChangeNotificationPath
	children, _, ev, err := c.store.ChildrenW(ctx, root)
	if err != nil {
		if errors.Is(err, meta.ErrNoNode) {
			return
		}
		c.fail("watch "+root, err)
		return
	}
	c.watch(ev, c.onIsrChangeNotifications)
	if len(children) == 0 {
		return
	}
	b := c.newBatch()
	for _, name := range children {
		path := root + "/" + name
		data, _, err := c.store.Get(ctx, path)
		if errors.Is(err, meta.ErrNoNode) {
			continue
		}
		if err != nil {
			c.fail("read "+path, err)
			return
		}
		n, err := znode.ParseIsrChangeNotification(data)
		if err != nil {
			c.log.Error("unreadable ISR change notification; deleting it", "path", path, "err", err)
		}
		for _, e := range n.Partitions {
			p := tp{Topic: e.Topic, Partition: e.Partition}
			if ps := c.st.partState(p); ps != nil && c.reloadState(p) {
				b.updateMetadata(p)
			}
		}
		c.deleteAdminZnode(path)
	}
	b.send()
}

// deleteAdminZnode removes a handled request, fenced by our epoch.
func (c *Controller) deleteAdminZnode(path string) {
	if c.fencedOut {
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	results, err := c.store.Multi(ctx,
		meta.CheckOp{Path: znode.ControllerEpochPath, Version: c.st.epochZkVersion},
		meta.DeleteOp{Path: path, Version: -1},
	)
	if fenced(results, err) {
		c.fencedOut = true
		return
	}
	if err != nil && !errors.Is(err, meta.ErrNoNode) {
		c.fail("delete "+path, err)
	}
}
