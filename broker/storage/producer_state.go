package storage

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// producerBatchesToRetain is Kafka's NumBatchesToRetain: the dedup window,
// and the reason clients cap max.in.flight.requests.per.connection at 5.
const producerBatchesToRetain = 5

// noProducerEpoch is Kafka's RecordBatch.NO_PRODUCER_EPOCH.
const noProducerEpoch = -1

// ProducerBatch is what is remembered of one idempotent batch.
type ProducerBatch struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
	Timestamp               int64 // the batch's max timestamp
}

// ProducerState is the state of one producer id on this partition.
type ProducerState struct {
	ProducerID            int64
	Epoch                 int16
	Batches               []ProducerBatch // oldest first, at most 5
	CoordinatorEpoch      int32
	CurrentTxnFirstOffset int64 // first offset of the open transaction, -1 = none
	LastTimestamp         int64
}

// LastSequence is the last sequence written, -1 when no batch is retained.
func (p *ProducerState) LastSequence() int32 {
	if len(p.Batches) == 0 {
		return -1
	}
	return p.Batches[len(p.Batches)-1].LastSeq
}

// LastOffset is the last offset written, -1 when no batch is retained.
func (p *ProducerState) LastOffset() int64 {
	if len(p.Batches) == 0 {
		return -1
	}
	return p.Batches[len(p.Batches)-1].LastOffset
}

func (p *ProducerState) clone() ProducerState {
	c := *p
	c.Batches = slices.Clone(p.Batches)
	return c
}

func newProducerState(pid int64) ProducerState {
	return ProducerState{ProducerID: pid, Epoch: noProducerEpoch, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1, LastTimestamp: noTimestamp}
}

// AppendOrigin is who is appending, which decides the producer checks
// (Kafka's AppendOrigin).
type AppendOrigin int8

const (
	// OriginClient: a Produce request. Duplicates are detected, epochs and
	// sequences checked, and an open transaction may only get
	// transactional batches.
	OriginClient AppendOrigin = iota
	// OriginCoordinator: a broker coordinator (the group coordinator's
	// transactional offset commits, WriteTxnMarkers). Epochs are checked,
	// sequences are not (Kafka writes those batches with sequence 0 each
	// time), and markers are fenced by coordinator epoch.
	OriginCoordinator
	// OriginReplication: a follower copying the leader. Nothing is
	// checked; the state follows the log.
	OriginReplication
)

// txnMarker is the decoded record of an end-transaction control batch.
type txnMarker struct {
	abort            bool
	coordinatorEpoch int32
}

// applyData records data batch h (offsets already final) without checks:
// epoch, dedup window, timestamp. Transaction bookkeeping is the caller's.
func (p *ProducerState) applyData(h *record.BatchHeader) {
	p.maybeUpdateEpoch(h.ProducerEpoch)
	p.LastTimestamp = h.MaxTimestamp
	if len(p.Batches) == producerBatchesToRetain {
		copy(p.Batches, p.Batches[1:])
		p.Batches = p.Batches[:producerBatchesToRetain-1]
	}
	p.Batches = append(p.Batches, ProducerBatch{
		FirstSeq: h.BaseSequence, LastSeq: h.LastSequence(),
		FirstOffset: h.BaseOffset, LastOffset: h.LastOffset(),
		Timestamp: h.MaxTimestamp,
	})
}

// maybeUpdateEpoch moves to epoch, forgetting the dedup window of the old
// one (Kafka's maybeUpdateProducerEpoch).
func (p *ProducerState) maybeUpdateEpoch(epoch int16) {
	if epoch != p.Epoch {
		p.Epoch = epoch
		p.Batches = p.Batches[:0]
	}
}

// validate applies Kafka's ProducerAppendInfo checks for a client batch
// against the state as it stands (including earlier batches of the same
// append): epoch fencing, then sequence continuity.
func (p *ProducerState) validate(h *record.BatchHeader) error {
	if err := p.checkEpoch(h); err != nil {
		return err
	}
	first := h.BaseSequence
	if h.ProducerEpoch != p.Epoch {
		if first == 0 {
			return nil
		}
		if p.Epoch != noProducerEpoch {
			return fmt.Errorf("storage: producer %d: new epoch %d must start at sequence 0, got %d: %w", h.ProducerID, h.ProducerEpoch, first, ErrOutOfOrderSequence)
		}
		return fmt.Errorf("storage: producer %d: no state for it and first sequence %d is not 0: %w", h.ProducerID, first, ErrUnknownProducerID)
	}
	if p.Epoch == noProducerEpoch {
		return nil
	}
	last := p.LastSequence()
	if first == last+1 && last != 1<<31-1 || first == 0 && last == 1<<31-1 {
		return nil
	}
	return fmt.Errorf("storage: producer %d epoch %d: sequence %d does not follow %d: %w", h.ProducerID, h.ProducerEpoch, first, last, ErrOutOfOrderSequence)
}

func (p *ProducerState) checkEpoch(h *record.BatchHeader) error {
	if h.ProducerEpoch < p.Epoch {
		return fmt.Errorf("storage: producer %d: epoch %d is older than the current %d: %w", h.ProducerID, h.ProducerEpoch, p.Epoch, ErrInvalidProducerEpoch)
	}
	return nil
}

// ProducerStateManager tracks idempotent and transactional producers of one
// partition and their transactions (Kafka's ProducerStateManager, see
// producer_txn.go), and their snapshots in the partition directory. The Log
// mutates it under its own lock; the read methods are safe for concurrent
// use.
type ProducerStateManager struct {
	fs      vfs.FS
	dirSync func() error // the directory fsync (the log's)
	dir     string
	logger  *slog.Logger

	mu        sync.RWMutex
	producers map[int64]*ProducerState
	txns      txnSet
	mapEnd    int64 // the state reflects every batch below this offset
}

func newProducerStateManager(fsys vfs.FS, dir string, logger *slog.Logger) *ProducerStateManager {
	return &ProducerStateManager{fs: fsys, dirSync: func() error { return syncDir(fsys, dir) }, dir: dir, logger: logger, producers: map[int64]*ProducerState{}}
}

// Producer returns a copy of one producer's state.
func (m *ProducerStateManager) Producer(pid int64) (ProducerState, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.producers[pid]
	if !ok {
		return ProducerState{}, false
	}
	return p.clone(), true
}

// Producers returns copies of every producer's state, by producer id.
func (m *ProducerStateManager) Producers() []ProducerState {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]ProducerState, 0, len(m.producers))
	for _, p := range m.producers {
		out = append(out, p.clone())
	}
	slices.SortFunc(out, func(a, b ProducerState) int {
		switch {
		case a.ProducerID < b.ProducerID:
			return -1
		case a.ProducerID > b.ProducerID:
			return 1
		}
		return 0
	})
	return out
}

// MapEndOffset is the offset up to which the state has been built.
func (m *ProducerStateManager) MapEndOffset() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.mapEnd
}

// producerAppend stages the producer updates of one append so they apply
// all-or-nothing once the bytes are on disk. A handful of producers per
// append at most, so a slice beats a map.
type producerAppend struct {
	updates   []ProducerState
	started   []txnMeta      // transactions the append begins, in log order
	completed []CompletedTxn // transactions its markers end, in log order
}

func (a *producerAppend) reset() {
	a.updates, a.started, a.completed = a.updates[:0], a.started[:0], a.completed[:0]
}

// stateFor returns the staged state of pid, seeding it from the committed
// one. A staging slot keeps its batch buffer from one append to the next
// (the log reuses its producerAppend), so staging allocates nothing.
func (m *ProducerStateManager) stateFor(a *producerAppend, pid int64) *ProducerState {
	for i := range a.updates {
		if a.updates[i].ProducerID == pid {
			return &a.updates[i]
		}
	}
	n := len(a.updates)
	if n < cap(a.updates) {
		a.updates = a.updates[:n+1]
	} else {
		a.updates = append(a.updates, ProducerState{})
	}
	st := &a.updates[n]
	buf := st.Batches[:0]
	m.mu.RLock()
	if cur, ok := m.producers[pid]; ok {
		*st = *cur
		st.Batches = append(buf, cur.Batches...)
	} else {
		*st = newProducerState(pid)
		st.Batches = buf
	}
	m.mu.RUnlock()
	return st
}

// findDuplicate reports whether client batch h repeats one of the last
// batches retained for its producer (same epoch, same first and last
// sequence).
func (m *ProducerStateManager) findDuplicate(h *record.BatchHeader) (ProducerBatch, bool) {
	if h.ProducerID < 0 || h.IsControl() {
		return ProducerBatch{}, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.producers[h.ProducerID]
	if !ok || p.Epoch != h.ProducerEpoch {
		return ProducerBatch{}, false
	}
	last := h.LastSequence()
	for _, b := range p.Batches {
		if b.FirstSeq == h.BaseSequence && b.LastSeq == last {
			return b, true
		}
	}
	return ProducerBatch{}, false
}

// stage checks batch h (whole bytes b) as origin requires and records it
// into a: a client batch must have a current epoch and the next sequence, a
// coordinator batch a current epoch; neither may be non-transactional while
// its producer has a transaction open (ErrInvalidTxnState). Markers go
// through stageMarker.
func (m *ProducerStateManager) stage(a *producerAppend, h *record.BatchHeader, b []byte, origin AppendOrigin) error {
	if h.ProducerID < 0 {
		return nil
	}
	if h.IsControl() {
		mk, ok, err := readMarker(h, b)
		if err != nil || !ok {
			return err
		}
		return m.stageMarker(a, h, mk, origin)
	}
	st := m.stateFor(a, h.ProducerID)
	switch origin {
	case OriginClient:
		if err := st.validate(h); err != nil {
			return err
		}
	case OriginCoordinator:
		if err := st.checkEpoch(h); err != nil {
			return err
		}
	}
	if origin != OriginReplication && st.CurrentTxnFirstOffset >= 0 && !h.IsTransactional() {
		return fmt.Errorf("storage: producer %d: non-transactional batch while its transaction from offset %d is open: %w", h.ProducerID, st.CurrentTxnFirstOffset, ErrInvalidTxnState)
	}
	st.applyData(h)
	if h.IsTransactional() && st.CurrentTxnFirstOffset < 0 {
		st.CurrentTxnFirstOffset = h.BaseOffset
		a.started = append(a.started, txnMeta{pid: h.ProducerID, first: h.BaseOffset, last: -1})
	}
	return nil
}

// commit publishes the staged updates and transactions; the state now
// covers offsets below mapEnd.
func (m *ProducerStateManager) commit(a *producerAppend, mapEnd int64) {
	m.mu.Lock()
	for i := range a.updates {
		st := &a.updates[i]
		if cur, ok := m.producers[st.ProducerID]; ok {
			// In place: readers copy the state under the lock, and the
			// staging slot keeps its own buffer.
			batches := append(cur.Batches[:0], st.Batches...)
			*cur = *st
			cur.Batches = batches
			continue
		}
		c := st.clone()
		m.producers[c.ProducerID] = &c
	}
	m.txns.apply(a, nil)
	if mapEnd > m.mapEnd {
		m.mapEnd = mapEnd
	}
	m.mu.Unlock()
}

// reset forgets every producer and transaction; the state then starts at
// mapEnd.
func (m *ProducerStateManager) reset(mapEnd int64) {
	m.mu.Lock()
	m.producers = map[int64]*ProducerState{}
	m.txns = txnSet{}
	m.mapEnd = mapEnd
	m.mu.Unlock()
}

func (m *ProducerStateManager) setMapEnd(off int64) {
	m.mu.Lock()
	m.mapEnd = off
	m.mu.Unlock()
}
