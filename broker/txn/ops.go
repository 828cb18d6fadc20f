package txn

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/txn/txnrec"
)

// ProducerIDEpoch is the producer id and epoch a KIP-360 producer (v3+)
// names in InitProducerId.
type ProducerIDEpoch struct {
	ProducerID int64
	Epoch      int16
}

// InitResult answers an InitProducerId.
type InitResult struct {
	ProducerID int64
	Epoch      int16
	Err        *kerr.Error
}

func initError(err *kerr.Error) InitResult { return InitResult{ProducerID: -1, Epoch: -1, Err: err} }

// InitProducerID handles an InitProducerId with a transactional id
// (Kafka's handleInitProducerId): a new id gets a producer id; a quiet one
// gets its epoch bumped, which fences the previous producer instance; an
// Ongoing transaction is aborted first (the answer is then
// CONCURRENT_TRANSACTIONS and the client retries). It may block on the
// producer id allocator, so callers run it off the connection's reader.
func (c *Coordinator) InitProducerID(ctx context.Context, id string, timeoutMs int32, expected *ProducerIDEpoch) <-chan InitResult {
	ch := make(chan InitResult, 1)
	switch {
	case id == "":
		ch <- initError(kerr.InvalidRequest)
		return ch
	case timeoutMs <= 0 || int64(timeoutMs) > c.cfg.MaxTimeout.Milliseconds():
		ch <- initError(kerr.InvalidTransactionTimeout)
		return ch
	}
	var spare int64 = -1 // a fresh producer id, once one was needed
	allocate := func() *kerr.Error {
		if spare >= 0 {
			return nil
		}
		pid, err := c.nextPID(ctx)
		if err != nil {
			c.logger.Warn("cannot allocate a producer id", "err", err)
			return kerr.CoordinatorNotAvailable
		}
		spare = pid
		return nil
	}
	for {
		m, err := c.lockMeta(id, func() (*txnMeta, *kerr.Error) {
			if err := allocate(); err != nil {
				return nil, err
			}
			pid := spare
			spare = -1
			return newMeta(id, nil, txnrec.Value{ProducerID: pid, ProducerEpoch: noProducerEpoch, TimeoutMs: timeoutMs,
				State: Empty, LastUpdateMs: c.nowMs(), StartMs: -1}), nil
		})
		if err != nil {
			ch <- initError(err)
			return ch
		}
		needPID := c.initLocked(m, timeoutMs, expected, &spare, ch)
		m.mu.Unlock()
		if !needPID {
			return ch
		}
		// The epochs of the producer id are exhausted: get a new one off
		// the lock and decide again.
		if err := allocate(); err != nil {
			ch <- initError(err)
			return ch
		}
	}
}

// initLocked is the decision of InitProducerId on a locked metadata
// (Kafka's prepareInitProducerIdTransit). It reports true when it needs a
// fresh producer id in *spare first.
func (c *Coordinator) initLocked(m *txnMeta, timeoutMs int32, expected *ProducerIDEpoch, spare *int64, ch chan InitResult) bool {
	answer := func(t transit) func(*kerr.Error) {
		return func(err *kerr.Error) {
			if err != nil {
				ch <- initError(err)
				return
			}
			c.logger.Info("initialized transactional id", "transactional_id", m.id, "producer_id", t.producerID, "epoch", t.epoch)
			ch <- InitResult{ProducerID: t.producerID, Epoch: t.epoch}
		}
	}
	if m.hasPending {
		ch <- initError(kerr.ConcurrentTransactions)
		return false
	}
	if expected != nil && !(m.epoch == noProducerEpoch || expected.ProducerID == m.producerID ||
		expected.ProducerID == m.lastProducerID && epochExhausted(expected.Epoch)) {
		ch <- initError(kerr.ProducerFenced)
		return false
	}
	now := c.nowMs()
	switch m.state {
	case PrepareAbort, PrepareCommit:
		ch <- initError(kerr.ConcurrentTransactions)
	case CompleteAbort, CompleteCommit, Empty:
		var t transit
		var err error
		if epochExhausted(m.epoch) && (expected == nil || expected.Epoch == m.epoch) {
			if *spare < 0 {
				return true
			}
			t, err = m.prepareRotate(*spare, timeoutMs, now, expected != nil)
			*spare = -1
		} else {
			var expectedEpoch *int16
			if expected != nil {
				expectedEpoch = &expected.Epoch
			}
			var ok bool
			t, ok, err = m.prepareIncrementEpoch(timeoutMs, expectedEpoch, now)
			if err == nil && !ok {
				ch <- initError(kerr.ProducerFenced)
				return false
			}
		}
		if err != nil {
			c.logger.Error("illegal transaction state transition", "err", err)
			ch <- initError(kerr.UnknownServerError)
			return false
		}
		c.write(m, t, false, answer(t))
	case Ongoing:
		// Fence the producer and abort its transaction; the epoch bumped
		// here is never returned: the client retries on
		// CONCURRENT_TRANSACTIONS and its retry bumps again.
		t, err := m.prepareFence()
		if err != nil {
			c.logger.Error("cannot fence producer", "err", err)
			ch <- initError(kerr.UnknownServerError)
			return false
		}
		c.fenceAndAbort(m, t, func(err *kerr.Error) {
			if err == nil {
				err = kerr.ConcurrentTransactions
			}
			ch <- initError(err)
		})
	default:
		c.logger.Error("illegal transaction state", "transactional_id", m.id, "state", m.state)
		ch <- initError(kerr.UnknownServerError)
	}
	return false
}

// AddPartitions handles AddPartitionsToTxn and AddOffsetsToTxn (which adds
// the group's __consumer_offsets partition): the partitions join the
// transaction, which becomes Ongoing. The answer comes once the state is
// written, or at once when nothing changes.
func (c *Coordinator) AddPartitions(id string, producerID int64, epoch int16, tps []partid.TopicPartition) <-chan *kerr.Error {
	ch := make(chan *kerr.Error, 1)
	m, err := c.lockExisting(id)
	if err != nil {
		ch <- err
		return ch
	}
	defer m.mu.Unlock()
	switch {
	case m.producerID != producerID:
		ch <- kerr.InvalidProducerIDMapping
	case m.epoch != epoch:
		ch <- kerr.ProducerFenced
	case m.hasPending, m.state == PrepareCommit, m.state == PrepareAbort:
		ch <- kerr.ConcurrentTransactions
	case m.state == Ongoing && m.hasAll(tps):
		ch <- nil
	default:
		t, perr := m.prepareAddPartitions(tps, c.nowMs())
		if perr != nil {
			c.logger.Error("illegal transaction state transition", "err", perr)
			ch <- kerr.UnknownServerError
			return ch
		}
		c.write(m, t, false, func(err *kerr.Error) { ch <- err })
	}
	return ch
}

// lockExisting is the metadata of a transactional id a producer already
// initialized, locked: INVALID_REQUEST for no id, the coordinator error,
// or INVALID_PRODUCER_ID_MAPPING when it has none.
func (c *Coordinator) lockExisting(id string) (*txnMeta, *kerr.Error) {
	if id == "" {
		return nil, kerr.InvalidRequest
	}
	m, err := c.lockMeta(id, nil)
	switch {
	case err != nil:
		return nil, err
	case m == nil:
		return nil, kerr.InvalidProducerIDMapping
	}
	return m, nil
}

func (m *txnMeta) hasAll(tps []partid.TopicPartition) bool {
	for _, tp := range tps {
		if _, ok := m.partitions[tp]; !ok {
			return false
		}
	}
	return true
}

// EndTxn handles an EndTxn from a producer: the transaction is logged as
// PrepareCommit or PrepareAbort, answered, and then completed by writing
// markers to its partitions.
func (c *Coordinator) EndTxn(id string, producerID int64, epoch int16, commit bool) <-chan *kerr.Error {
	ch := make(chan *kerr.Error, 1)
	m, err := c.lockExisting(id)
	if err != nil {
		ch <- err
		return ch
	}
	defer m.mu.Unlock()
	c.endLocked(m, producerID, epoch, commit, true, func(err *kerr.Error) { ch <- err })
	return ch
}

// endLocked is Kafka's endTransaction on a locked metadata; done runs with
// m.mu held. fromClient=false is the coordinator's own abort (a fence, a
// timeout), whose epoch is the bumped one.
func (c *Coordinator) endLocked(m *txnMeta, producerID int64, epoch int16, commit, fromClient bool, done func(*kerr.Error)) {
	mismatch := func() {
		c.logger.Debug("end transaction does not match the state", "transactional_id", m.id, "state", m.state, "commit", commit)
		done(kerr.InvalidTxnState)
	}
	switch {
	case m.producerID != producerID:
		done(kerr.InvalidProducerIDMapping)
		return
	case fromClient && epoch != m.epoch, epoch < m.epoch:
		done(kerr.ProducerFenced)
		return
	case m.hasPending && m.pending != PrepareEpochFence:
		done(kerr.ConcurrentTransactions)
		return
	}
	switch m.state {
	case Ongoing:
		next := PrepareAbort
		if commit {
			next = PrepareCommit
		}
		fence := false
		if m.hasPending && m.pending == PrepareEpochFence {
			if next != PrepareAbort {
				done(kerr.ConcurrentTransactions)
				return
			}
			// The fence's epoch becomes the transaction's, before the
			// write, as in Kafka: the fenced producer is refused at once.
			fence = true
			m.hasPending = false
			m.epoch, m.lastEpoch = epoch, noProducerEpoch
		}
		t, err := m.prepareEnd(next, c.nowMs())
		if err != nil {
			c.logger.Error("illegal transaction state transition", "err", err)
			done(kerr.UnknownServerError)
			return
		}
		sh := m.sh
		c.write(m, t, false, func(err *kerr.Error) {
			if err != nil {
				if fence && c.owns(sh) {
					m.failedFence = true
				}
				done(err)
				return
			}
			done(nil)
			c.sendMarkers(m, c.nowMs())
		})
	case CompleteCommit:
		if commit {
			done(nil)
		} else {
			mismatch()
		}
	case CompleteAbort:
		if !commit {
			done(nil)
		} else {
			mismatch()
		}
	case PrepareCommit:
		if commit {
			done(kerr.ConcurrentTransactions)
		} else {
			mismatch()
		}
	case PrepareAbort:
		if !commit {
			done(kerr.ConcurrentTransactions)
		} else {
			mismatch()
		}
	case Empty:
		mismatch()
	default:
		c.logger.Error("illegal transaction state", "transactional_id", m.id, "state", m.state)
		done(kerr.UnknownServerError)
	}
}

// fenceAndAbort aborts a locked Ongoing transaction with the epoch of a
// prepared fence t. A refusal before the write leaves no fence pending.
func (c *Coordinator) fenceAndAbort(m *txnMeta, t transit, done func(*kerr.Error)) {
	c.endLocked(m, t.producerID, t.epoch, false, false, done)
	if m.hasPending && m.pending == PrepareEpochFence {
		m.hasPending = false
	}
}

// sendMarkers starts the marker phase of a locked metadata in
// PrepareCommit/PrepareAbort: the completion is prepared (so requests get
// CONCURRENT_TRANSACTIONS until it is written) and the markers queued.
func (c *Coordinator) sendMarkers(m *txnMeta, now int64) {
	partitions := m.sortedPartitions()
	t, err := m.prepareComplete(now)
	if err != nil {
		c.logger.Error("illegal transaction state transition", "err", err)
		return
	}
	c.markers.add(&markerJob{m: m, sh: m.sh, producerID: m.producerID, epoch: m.epoch, commit: m.state == PrepareCommit,
		complete: t, remaining: partitions})
}
