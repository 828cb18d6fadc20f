package group

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
)

// OnLeadershipChange is the replica manager's hook: when this broker
// becomes leader of a __consumer_offsets partition its groups are loaded
// (requests meanwhile get COORDINATOR_LOAD_IN_PROGRESS); when it stops
// leading one, its groups are dropped and their waiting members told
// NOT_COORDINATOR. It returns at once: loading runs in the background.
func (c *Coordinator) OnLeadershipChange(topic string, partition int32, leader bool, leaderEpoch int32) {
	if c == nil || topic != OffsetsTopic {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	cur, owned := c.shards[partition]
	if leader && owned && leaderEpoch >= cur.epoch {
		// An ISR change re-announces the same leadership; the groups we
		// hold are already the log's.
		cur.epoch = leaderEpoch
		return
	}
	if owned {
		// The shard leaves the map now, so new requests get
		// NOT_COORDINATOR at once; its groups die in the background (the
		// replica manager must not wait on group locks).
		delete(c.shards, partition)
		c.logger.Info("unloading groups of partition", "partition", partition, "leader_epoch", leaderEpoch)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.unloadShard(cur)
		}()
	}
	if !leader {
		return
	}
	sh := &shard{partition: partition, epoch: leaderEpoch, loading: true, groups: map[string]*group{}}
	sh.ctx, sh.cancel = context.WithCancel(context.Background())
	c.shards[partition] = sh
	c.logger.Info("loading groups of partition", "partition", partition, "leader_epoch", leaderEpoch)
	// Added under c.mu, which Stop takes before it waits: no Add can race
	// the Wait.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.loadShard(sh)
	}()
}

// unloadShard kills a shard's groups (it is no longer in c.shards):
// pending JoinGroup and SyncGroup answers become NOT_COORDINATOR so the
// members find the new coordinator.
func (c *Coordinator) unloadShard(sh *shard) {
	sh.cancel()
	c.mu.Lock()
	groups := make([]*group, 0, len(sh.groups))
	for _, g := range sh.groups {
		groups = append(groups, g)
	}
	sh.groups = map[string]*group{}
	c.mu.Unlock()
	for _, g := range groups {
		g.mu.Lock()
		for _, m := range g.members {
			g.answerJoin(m, joinError(m.id, kerr.NotCoordinator))
			g.answerSync(m, SyncResult{Err: kerr.NotCoordinator})
		}
		g.transition(Dead, c.now())
		c.stopGroupTimers(g)
		g.mu.Unlock()
	}
}
