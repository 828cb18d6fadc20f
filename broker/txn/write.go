package txn

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/record"
	"kafgo/broker/txn/txnrec"
)

// write appends a prepared transit of m (m.mu held, the transit pending)
// with acks=all, and calls done with m.mu held once the outcome is known:
// nil after the transit was applied. The wait for replication runs off
// the lock. keepPending leaves the transit pending after a failure, for
// the completion write, which is retried until it lands or the partition
// moves (Kafka's retryOnError).
func (c *Coordinator) write(m *txnMeta, t transit, keepPending bool, done func(*kerr.Error)) {
	fail := func(err *kerr.Error) {
		if !keepPending {
			m.hasPending = false
		}
		done(err)
	}
	batch, err := c.encode(m.id, t)
	if err != nil {
		c.logger.Error("cannot encode transaction state", "transactional_id", m.id, "err", err)
		fail(kerr.UnknownServerError)
		return
	}
	res, err := c.log.Append(m.sh.partition, -1, batch)
	if err != nil {
		fail(writeError(err))
		return
	}
	sh := m.sh
	if !c.goBackground(func() {
		werr := res.Await(c.ctx, c.cfg.WriteTimeout)
		m.mu.Lock()
		defer m.mu.Unlock()
		switch {
		case !c.owns(sh):
			// The partition moved on: its new leader's load is the
			// truth, this metadata is gone.
			done(kerr.NotCoordinator)
		case werr != nil:
			c.logger.Warn("transaction state write failed", "transactional_id", m.id, "state", t.state, "err", werr)
			fail(writeError(werr))
		default:
			m.complete(t)
			done(nil)
		}
	}) {
		fail(kerr.NotCoordinator)
	}
}

// encode builds the one-record batch of a transit: the metadata, or a
// tombstone for Dead. __transaction_state is never compressed.
func (c *Coordinator) encode(id string, t transit) ([]byte, error) {
	key, err := txnrec.AppendKey(nil, id)
	if err != nil {
		return nil, err
	}
	var val []byte
	if t.state != Dead {
		v := t.value()
		if val, err = v.AppendTo(nil); err != nil {
			return nil, err
		}
	}
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(c.nowMs(), key, val, nil)
	return b.Build()
}

// writeError maps a failed state write as Kafka's
// TransactionStateManager.appendTransactionToLog does.
func writeError(err error) *kerr.Error {
	if errors.Is(err, context.Canceled) {
		// The coordinator stopped: the partition's next leader answers.
		return kerr.NotCoordinator
	}
	ke := kafkaerr.Code(err)
	switch ke {
	case kerr.UnknownTopicOrPartition, kerr.NotEnoughReplicas, kerr.NotEnoughReplicasAfterAppend, kerr.RequestTimedOut:
		return kerr.CoordinatorNotAvailable
	case kerr.NotLeaderForPartition, kerr.KafkaStorageError:
		return kerr.NotCoordinator
	case kerr.MessageTooLarge, kerr.RecordListTooLarge:
		return kerr.UnknownServerError
	}
	return ke
}
