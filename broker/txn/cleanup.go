package txn

import (
	"github.com/twmb/franz-go/pkg/kerr"
)

// AbortTimedOut aborts every transaction left Ongoing past its timeout
// (Kafka's abortTimedOutTransactions, every
// transaction.abort.timed.out.transaction.cleanup.interval.ms): the
// producer's epoch is bumped first, so the producer is fenced, then the
// transaction is aborted with the new epoch like an EndTxn(ABORT).
func (c *Coordinator) AbortTimedOut() {
	now := c.nowMs()
	c.eachMeta(func(m *txnMeta) { c.abortIfTimedOut(m, now) })
}

// eachMeta calls f for every transactional id of the loaded partitions.
func (c *Coordinator) eachMeta(f func(*txnMeta)) {
	shards, _ := c.activeShards()
	for _, sh := range shards {
		for _, m := range c.metasOf(sh) {
			f(m)
		}
	}
}

func (c *Coordinator) abortIfTimedOut(m *txnMeta, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removed || m.state != Ongoing || m.hasPending || m.startMs+int64(m.timeoutMs) >= now {
		return
	}
	t, err := m.prepareFence()
	if err != nil {
		c.logger.Error("cannot fence the producer of a timed-out transaction", "transactional_id", m.id, "err", err)
		return
	}
	c.logger.Info("aborting timed-out transaction", "transactional_id", m.id, "producer_id", m.producerID,
		"epoch", t.epoch, "timeout_ms", m.timeoutMs)
	c.fenceAndAbort(m, t, func(err *kerr.Error) {
		if err != nil {
			c.logger.Warn("aborting a timed-out transaction failed", "transactional_id", m.id, "err", err)
		}
	})
}

// ExpireTransactionalIDs removes transactional ids idle for
// transactional.id.expiration.ms in a state that allows it (Empty,
// CompleteCommit, CompleteAbort): a tombstone is written, then the id is
// forgotten (Kafka's removeExpiredTransactionalIds).
func (c *Coordinator) ExpireTransactionalIDs() {
	cutoff := c.nowMs() - c.cfg.IDExpiration.Milliseconds()
	c.eachMeta(func(m *txnMeta) { c.expireIfIdle(m, cutoff) })
}

func (c *Coordinator) expireIfIdle(m *txnMeta, cutoff int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removed || m.hasPending || !expirable(m.state) || m.updateMs > cutoff {
		return
	}
	t, err := m.prepareDead()
	if err != nil {
		c.logger.Error("cannot expire transactional id", "transactional_id", m.id, "err", err)
		return
	}
	c.write(m, t, false, func(err *kerr.Error) {
		if err != nil {
			c.logger.Warn("expiring a transactional id failed", "transactional_id", m.id, "err", err)
			return
		}
		c.mu.Lock()
		if m.sh.txns[m.id] == m {
			delete(m.sh.txns, m.id)
		}
		c.mu.Unlock()
		m.removed = true
		c.logger.Info("expired transactional id", "transactional_id", m.id)
	})
}
