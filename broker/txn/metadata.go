package txn

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"kafgo/broker/partid"
	"kafgo/broker/txn/txnrec"
)

// State is a transaction's state (see doc.go for the machine).
type State = txnrec.State

// The states, re-exported for readers of this package.
const (
	Empty             = txnrec.Empty
	Ongoing           = txnrec.Ongoing
	PrepareCommit     = txnrec.PrepareCommit
	PrepareAbort      = txnrec.PrepareAbort
	CompleteCommit    = txnrec.CompleteCommit
	CompleteAbort     = txnrec.CompleteAbort
	Dead              = txnrec.Dead
	PrepareEpochFence = txnrec.PrepareEpochFence
)

const (
	noProducerID    int64 = -1
	noProducerEpoch int16 = -1
)

// validPrevious is Kafka's TransactionState.validPreviousStates.
var validPrevious = map[State][]State{
	Empty:             {Empty, CompleteCommit, CompleteAbort},
	Ongoing:           {Ongoing, Empty, CompleteCommit, CompleteAbort},
	PrepareCommit:     {Ongoing},
	PrepareAbort:      {Ongoing, PrepareEpochFence},
	CompleteCommit:    {PrepareCommit},
	CompleteAbort:     {PrepareAbort},
	Dead:              {Empty, CompleteAbort, CompleteCommit},
	PrepareEpochFence: {Ongoing},
}

// expirable states are those whose transactional id may expire.
func expirable(s State) bool { return s == Empty || s == CompleteCommit || s == CompleteAbort }

// epochExhausted is Kafka's isEpochExhausted: the last two epochs are kept
// back so the coordinator can always fence.
func epochExhausted(epoch int16) bool { return epoch >= math.MaxInt16-1 }

// txnState is what a transition sets, the partitions aside.
type txnState struct {
	producerID     int64
	lastProducerID int64
	epoch          int16
	lastEpoch      int16
	timeoutMs      int32
	state          State
	startMs        int64 // -1 when no transaction started
	updateMs       int64
}

// transit is a prepared state (Kafka's TxnTransitMetadata): what is
// written to the log and applied once the write is replicated.
type transit struct {
	txnState
	partitions []partid.TopicPartition // sorted
}

// reset makes t the Empty state InitProducerId leaves: no transaction,
// the producer's new timeout.
func (t transit) reset(timeoutMs int32, now int64) transit {
	t.state, t.timeoutMs, t.partitions, t.startMs, t.updateMs = Empty, timeoutMs, nil, -1, now
	return t
}

func (t *transit) value() txnrec.Value {
	return txnrec.Value{ProducerID: t.producerID, ProducerEpoch: t.epoch, TimeoutMs: t.timeoutMs, State: t.state,
		Partitions: t.partitions, LastUpdateMs: t.updateMs, StartMs: t.startMs}
}

// txnMeta is one transactional id's metadata (Kafka's
// TransactionMetadata). Every field but id and sh is guarded by mu.
type txnMeta struct {
	mu sync.Mutex
	id string
	sh *shard // the shard it was loaded or created in

	txnState
	partitions map[partid.TopicPartition]struct{}

	// pending is the state a transition in flight goes to; requests get
	// CONCURRENT_TRANSACTIONS meanwhile.
	pending    State
	hasPending bool
	// failedFence: an epoch fence bumped the epoch in memory but its write
	// failed; the next fence reuses that epoch instead of bumping again.
	failedFence bool
	// removed: expired and dropped from its shard; lookups start over.
	removed bool
}

func newMeta(id string, sh *shard, v txnrec.Value) *txnMeta {
	m := &txnMeta{id: id, sh: sh, partitions: map[partid.TopicPartition]struct{}{}, txnState: txnState{
		producerID: v.ProducerID, lastProducerID: noProducerID, epoch: v.ProducerEpoch, lastEpoch: noProducerEpoch,
		timeoutMs: v.TimeoutMs, state: v.State, startMs: v.StartMs, updateMs: v.LastUpdateMs}}
	for _, tp := range v.Partitions {
		m.partitions[tp] = struct{}{}
	}
	return m
}

// sortedPartitions lists the transaction's partitions in order.
func (m *txnMeta) sortedPartitions() []partid.TopicPartition {
	out := slices.Collect(maps.Keys(m.partitions))
	slices.SortFunc(out, partid.Compare)
	return out
}

// current is the metadata as a transit, the base every prepare edits.
func (m *txnMeta) current() transit {
	t := transit{txnState: m.txnState, partitions: m.sortedPartitions()}
	t.lastProducerID = m.producerID
	return t
}

// prepare is Kafka's prepareTransitionTo: it checks the transition and
// marks it pending. A refusal is a coordinator bug, not a client error.
func (m *txnMeta) prepare(t transit) (transit, error) {
	switch {
	case m.hasPending:
		return t, fmt.Errorf("txn: %s: transition to %s while %s is pending", m.id, t.state, m.pending)
	case t.producerID < 0:
		return t, fmt.Errorf("txn: %s: illegal producer id %d", m.id, t.producerID)
	case t.state != Dead && t.epoch < 0:
		return t, fmt.Errorf("txn: %s: illegal producer epoch %d", m.id, t.epoch)
	case !slices.Contains(validPrevious[t.state], m.state):
		return t, fmt.Errorf("txn: %s: %s cannot follow %s", m.id, t.state, m.state)
	}
	m.pending, m.hasPending = t.state, true
	return t, nil
}

// complete applies a transit whose write was replicated.
func (m *txnMeta) complete(t transit) {
	m.txnState = t.txnState
	m.partitions = map[partid.TopicPartition]struct{}{}
	for _, tp := range t.partitions {
		m.partitions[tp] = struct{}{}
	}
	m.hasPending = false
}

// prepareIncrementEpoch is InitProducerId's bump from a quiet state
// (Kafka's prepareIncrementProducerEpoch). expected is the epoch a KIP-360
// producer names, or nil.
func (m *txnMeta) prepareIncrementEpoch(timeoutMs int32, expected *int16, now int64) (transit, bool, error) {
	if epochExhausted(m.epoch) {
		return transit{}, false, fmt.Errorf("txn: %s: no epochs left for producer id %d", m.id, m.producerID)
	}
	t := m.current()
	bumped := m.epoch + 1
	switch {
	case expected == nil:
		// A new producer instance: bump, and forget the last epoch.
		t.epoch, t.lastEpoch = bumped, noProducerEpoch
	case m.epoch == noProducerEpoch || *expected == m.epoch:
		// The producer recovers from an error and nobody replaced it.
		t.epoch, t.lastEpoch = bumped, m.epoch
	case *expected == m.lastEpoch:
		// A retry of a bump that succeeded: answer the current epoch.
		t.epoch, t.lastEpoch = m.epoch, m.lastEpoch
	default:
		return transit{}, false, nil // fenced
	}
	t, err := m.prepare(t.reset(timeoutMs, now))
	return t, true, err
}

// prepareRotate moves an exhausted producer to a fresh producer id at
// epoch 0 (Kafka's prepareProducerIdRotation).
func (m *txnMeta) prepareRotate(newPID int64, timeoutMs int32, now int64, recordLastEpoch bool) (transit, error) {
	t := m.current()
	t.producerID, t.epoch, t.lastEpoch = newPID, 0, noProducerEpoch
	if recordLastEpoch {
		t.lastEpoch = m.epoch
	}
	return m.prepare(t.reset(timeoutMs, now))
}

// prepareFence bumps the epoch so the current producer is fenced before
// its open transaction is aborted (Kafka's prepareFenceProducerEpoch).
func (m *txnMeta) prepareFence() (transit, error) {
	if m.epoch == math.MaxInt16 {
		return transit{}, fmt.Errorf("txn: %s: cannot fence producer %d at epoch %d", m.id, m.producerID, m.epoch)
	}
	t := m.current()
	if !m.failedFence {
		t.epoch = m.epoch + 1
	}
	t.lastEpoch, t.state = noProducerEpoch, PrepareEpochFence
	return m.prepare(t)
}

// prepareAddPartitions opens or extends the transaction.
func (m *txnMeta) prepareAddPartitions(tps []partid.TopicPartition, now int64) (transit, error) {
	t := m.current()
	if m.state == Empty || m.state == CompleteCommit || m.state == CompleteAbort {
		t.startMs = now
	}
	t.partitions = append(t.partitions, tps...)
	slices.SortFunc(t.partitions, partid.Compare)
	t.partitions = slices.Compact(t.partitions)
	t.state, t.updateMs = Ongoing, now
	return m.prepare(t)
}

// prepareEnd moves an Ongoing transaction to PrepareCommit/PrepareAbort.
func (m *txnMeta) prepareEnd(next State, now int64) (transit, error) {
	t := m.current()
	t.state, t.updateMs = next, now
	return m.prepare(t)
}

// prepareComplete is the transition once every marker is written: the
// partitions are done (Kafka's prepareComplete).
func (m *txnMeta) prepareComplete(now int64) (transit, error) {
	t := m.current()
	t.state = CompleteCommit
	if m.state == PrepareAbort {
		t.state = CompleteAbort
	}
	m.failedFence = false
	t.partitions, t.updateMs = nil, now
	return m.prepare(t)
}

// prepareDead is the expiration of an idle transactional id.
func (m *txnMeta) prepareDead() (transit, error) {
	t := m.current()
	t.state, t.partitions = Dead, nil
	return m.prepare(t)
}
