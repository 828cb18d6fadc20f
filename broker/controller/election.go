package controller

import (
	"errors"
	"time"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// elect reads /controller and, if nobody holds it, tries to take it together
// with the next controller epoch. Either way it leaves a watch that re-runs
// the election when /controller changes.
func (c *Controller) elect() {
	if c.stopping.Load() {
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	for attempt := 0; attempt < 5; attempt++ {
		data, _, ev, err := c.store.GetW(ctx, znode.ControllerPath)
		if err == nil {
			id := int32(-1)
			if ctl, perr := znode.ParseController(data); perr == nil {
				id = ctl.BrokerID
			}
			c.activeID.Store(id)
			c.watchElection(ev)
			if id != c.cfg.BrokerID && c.st != nil {
				c.resign("another broker holds /controller")
			}
			return
		}
		if !errors.Is(err, meta.ErrNoNode) {
			c.fail("read /controller", err)
			c.retryElection()
			return
		}
		won, err := c.tryTakeControl()
		if err != nil {
			c.fail("take /controller", err)
			c.retryElection()
			return
		}
		if won {
			// Watch our own znode: losing it (session expiry, deletion)
			// must resign.
			if _, _, ev, err := c.store.ExistsW(ctx, znode.ControllerPath); err == nil {
				c.watchElection(ev)
			}
			return
		}
	}
	c.retryElection()
}

func (c *Controller) watchElection(ev <-chan meta.Event) {
	go func() {
		select {
		case <-c.stop:
		case _, ok := <-ev:
			if ok {
				c.submit(c.elect)
			}
		}
	}()
}

func (c *Controller) retryElection() {
	go func() {
		select {
		case <-c.stop:
		case <-time.After(time.Second):
			c.submit(c.elect)
		}
	}()
}

// tryTakeControl creates /controller and bumps /controller_epoch in one
// Multi, so no two brokers can both win an epoch.
func (c *Controller) tryTakeControl() (bool, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	data, stat, err := c.store.Get(ctx, znode.ControllerEpochPath)
	if errors.Is(err, meta.ErrNoNode) {
		if _, cerr := c.store.Create(ctx, znode.ControllerEpochPath, znode.EncodeControllerEpoch(znode.InitialControllerEpoch), meta.Persistent); cerr != nil && !errors.Is(cerr, meta.ErrNodeExists) {
			return false, cerr
		}
		data, stat, err = c.store.Get(ctx, znode.ControllerEpochPath)
	}
	if err != nil {
		return false, err
	}
	cur, err := znode.ParseControllerEpoch(data)
	if err != nil {
		return false, err
	}
	epoch := cur + 1
	reg := znode.Controller{Version: 1, BrokerID: c.cfg.BrokerID, Timestamp: znode.Timestamp(time.Now())}
	regData, err := reg.Marshal()
	if err != nil {
		return false, err
	}
	results, err := c.store.Multi(ctx,
		meta.CreateOp{Path: znode.ControllerPath, Data: regData, Mode: meta.Ephemeral},
		meta.SetOp{Path: znode.ControllerEpochPath, Data: znode.EncodeControllerEpoch(epoch), Version: stat.Version},
	)
	if err != nil {
		if errors.Is(err, meta.ErrNodeExists) || errors.Is(err, meta.ErrBadVersion) {
			return false, nil // lost the race; the caller re-reads /controller
		}
		return false, err
	}
	epochZkVersion := stat.Version + 1
	if len(results) == 2 {
		epochZkVersion = results[1].Stat.Version
	}
	c.becomeController(epoch, epochZkVersion)
	return true, nil
}

// becomeController is Kafka's onControllerFailover: load the cluster from
// the store, set the watches, bring every partition online and tell every
// broker the state.
func (c *Controller) becomeController(epoch, epochZkVersion int32) {
	c.gen++
	c.st = newState(epoch, epochZkVersion)
	c.epoch.Store(epoch)
	c.activeID.Store(c.cfg.BrokerID)
	c.chans = newChannels(c.cfg.Sender, c.log)
	c.log.Info("became the active controller", "epoch", epoch)

	ctx, cancel := c.ctx()
	defer cancel()
	if err := meta.EnsurePath(ctx, c.store, znode.DeleteTopicsPath); err != nil {
		c.fail("ensure paths", err)
	}
	if err := c.loadBrokers(); err != nil {
		c.fail("load brokers", err)
	}
	if err := c.loadTopics(); err != nil {
		c.fail("load topics", err)
	}
	b := c.newBatch()
	b.fullMetadata()
	// Tell every live replica its partitions' state, initialise new
	// partitions and elect leaders for offline ones.
	var offline, uninit []tp
	for _, p := range c.st.partitions() {
		ps := c.st.partState(p)
		switch {
		case ps == nil || !ps.exists:
			uninit = append(uninit, p)
		case ps.leader < 0 || !c.st.isLive(ps.leader):
			offline = append(offline, p)
		default:
			b.leaderAndISR(c.st.liveReplicas(p), p, false)
		}
	}
	c.initializePartitions(b, uninit)
	c.electOffline(b, offline, nil)
	// Replicas on brokers that died while no controller was watching
	// (e.g. the previous controller itself) leave the ISRs now.
	dead := map[int32]bool{}
	for _, p := range c.st.partitions() {
		for _, r := range c.st.replicas(p) {
			if !c.st.isLive(r) {
				dead[r] = true
			}
		}
	}
	if len(dead) > 0 {
		c.removeFromISR(b, dead)
	}
	b.send()
	c.resumeDeletions()
	c.resumeReassignments()
	c.followAdminZnodes()
	if c.cfg.AutoLeaderRebalance {
		c.rebalance = time.NewTicker(c.cfg.ImbalanceCheckInterval)
	}
}

// resign drops the controller role: stop sending, forget the state. The
// ephemeral /controller, if still ours, goes with our session; we delete it
// when the store is still usable so others need not wait for expiry.
func (c *Controller) resign(reason string) {
	if c.st == nil {
		return
	}
	c.log.Info("resigning as controller", "reason", reason, "epoch", c.st.epoch)
	c.chans.closeAll()
	c.chans = nil
	c.st = nil
	c.gen++
	c.epoch.Store(0)
	if c.rebalance != nil {
		c.rebalance.Stop()
		c.rebalance = nil
	}
	if c.activeID.Load() == c.cfg.BrokerID {
		c.activeID.Store(-1)
		ctx, cancel := c.ctx()
		defer cancel()
		if _, stat, err := c.store.Get(ctx, znode.ControllerPath); err == nil && stat.EphemeralOwner == c.store.SessionID() {
			_ = c.store.Delete(ctx, znode.ControllerPath, stat.Version)
		}
	}
}
