package txn

import (
	"context"
	"time"

	"kafgo/broker/coordlog"
	"kafgo/broker/txn/txnrec"
)

// OnLeadershipChange is the replica manager's hook. When this broker
// becomes leader of a __transaction_state partition its transactional ids
// are loaded in the background (requests meanwhile get
// COORDINATOR_LOAD_IN_PROGRESS) with the leader epoch as coordinator
// epoch; when it stops leading one, they are dropped with their pending
// markers (requests get NOT_COORDINATOR).
func (c *Coordinator) OnLeadershipChange(topic string, partition int32, leader bool, leaderEpoch int32) {
	if c == nil || topic != TopicName {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	cur, owned := c.shards[partition]
	if leader && owned && leaderEpoch == cur.epoch {
		return // an ISR change re-announces the same leadership
	}
	if owned {
		// Cancelling the shard also drops its pending markers: the
		// marker manager forgets jobs of cancelled shards, and the new leader
		// resumes them from the log.
		cur.cancel()
		delete(c.shards, partition)
		c.logger.Info("unloaded transactions of partition", "partition", partition, "leader_epoch", leaderEpoch)
	}
	if !leader {
		return
	}
	sh := &shard{partition: partition, epoch: leaderEpoch, loading: true, txns: map[string]*txnMeta{}}
	sh.ctx, sh.cancel = context.WithCancel(context.Background())
	c.shards[partition] = sh
	c.logger.Info("loading transactions of partition", "partition", partition, "coordinator_epoch", leaderEpoch)
	c.wg.Add(1) // under c.mu, which Stop takes before it waits
	go func() {
		defer c.wg.Done()
		c.load(sh)
	}()
}

// replay is what a partition's log says: the last value of every
// transactional id.
type replay map[string]txnrec.Value

func (r replay) Record(_ coordlog.BatchInfo, _ int64, key, value []byte) error {
	id, err := txnrec.ParseKey(key)
	if err != nil {
		return err
	}
	if value == nil {
		delete(r, id)
		return nil
	}
	v, err := txnrec.ParseValue(value)
	if err != nil {
		return err
	}
	r[id] = v
	return nil
}

func (replay) Marker(coordlog.BatchInfo, bool) {}

// load builds the shard's metadata from its log, makes it active, and
// resumes every transaction caught between PrepareCommit/PrepareAbort and
// its completion: its markers are sent again (writing one twice is
// harmless, the partitions ignore the repeat).
func (c *Coordinator) load(sh *shard) {
	began := time.Now()
	r, ok := coordlog.Load(sh.ctx, coordlog.Replayer{Log: c.log, Topic: TopicName, BufSize: c.cfg.LoadBufferSize, Logger: c.logger},
		sh.partition, func() replay { return replay{} })
	if !ok {
		return
	}
	txns := make(map[string]*txnMeta, len(r))
	var prepared []*txnMeta
	for id, v := range r {
		m := newMeta(id, sh, v)
		txns[id] = m
		if m.state == PrepareCommit || m.state == PrepareAbort {
			prepared = append(prepared, m)
		}
	}
	c.mu.Lock()
	if c.shards[sh.partition] != sh || sh.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	sh.txns = txns
	sh.loading = false
	c.mu.Unlock()
	loaded, resumed := len(r), 0
	now := c.nowMs()
	for _, m := range prepared {
		m.mu.Lock()
		if (m.state == PrepareCommit || m.state == PrepareAbort) && !m.hasPending {
			c.sendMarkers(m, now)
			resumed++
		}
		m.mu.Unlock()
	}
	c.logger.Info("loaded transactions of partition", "partition", sh.partition, "transactional_ids", loaded,
		"resumed", resumed, "took", time.Since(began).Round(time.Millisecond))
}
