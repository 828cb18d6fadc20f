package storage

import (
	"cmp"
	"fmt"
	"slices"

	"kafgo/broker/record"
)

// Transactions on one partition (Kafka's ProducerStateManager ongoingTxns
// and unreplicatedTxns).
//
// A transaction opens with its producer's first transactional batch and
// ends with the producer's COMMIT or ABORT marker (a marker with no open
// transaction opens and ends one at its own offset, as in Kafka). Until its
// marker is below the high watermark, an ended transaction still holds the
// last stable offset back: a marker above the HW may be truncated away.
//
//	first unstable offset = min(first offset of the earliest open or
//	                            unreplicated transaction)
//	LSO = min(max(first unstable offset, log start), HW), HW when none
//
// The LSO written to the transaction index for an aborted transaction is
// the first offset of the earliest transaction of another producer still
// open, else the marker's offset + 1.

// CompletedTxn is a transaction ended by a marker.
type CompletedTxn struct {
	ProducerID  int64
	FirstOffset int64
	LastOffset  int64 // the marker's offset
	Aborted     bool
}

// txnMeta is an open (last -1) or ended transaction.
type txnMeta struct {
	pid, first, last int64
}

// txnSet holds the open and the unreplicated transactions, each sorted by
// first offset. A partition has a handful at a time, so slices beat trees.
type txnSet struct {
	ongoing      []txnMeta
	unreplicated []txnMeta
}

func (t *txnSet) clone() txnSet {
	return txnSet{ongoing: slices.Clone(t.ongoing), unreplicated: slices.Clone(t.unreplicated)}
}

func insertByFirst(s []txnMeta, m txnMeta) []txnMeta {
	i, _ := slices.BinarySearchFunc(s, m.first, func(e txnMeta, first int64) int { return cmp.Compare(e.first, first) })
	return slices.Insert(s, i, m)
}

func (t *txnSet) begin(pid, first int64) {
	t.ongoing = insertByFirst(t.ongoing, txnMeta{pid: pid, first: first, last: -1})
}

// complete ends c, moving it to the unreplicated set, and returns the LSO
// its index entry records.
func (t *txnSet) complete(c CompletedTxn) int64 {
	lso := c.LastOffset + 1
	for _, o := range t.ongoing {
		if o.pid != c.ProducerID {
			lso = o.first
			break
		}
	}
	t.ongoing = slices.DeleteFunc(t.ongoing, func(o txnMeta) bool { return o.pid == c.ProducerID && o.first == c.FirstOffset })
	t.unreplicated = insertByFirst(t.unreplicated, txnMeta{pid: c.ProducerID, first: c.FirstOffset, last: c.LastOffset})
	return lso
}

// apply records the transactions an append began and ended, in Kafka's
// order: every begun one first, then each ended one in log order. emit, if
// set, gets the index entry of each aborted one.
func (t *txnSet) apply(a *producerAppend, emit func(AbortedTxn)) {
	for _, s := range a.started {
		t.begin(s.pid, s.first)
	}
	for _, c := range a.completed {
		lso := t.complete(c)
		if c.Aborted && emit != nil {
			emit(AbortedTxn{ProducerID: c.ProducerID, FirstOffset: c.FirstOffset, LastOffset: c.LastOffset, LastStableOffset: lso})
		}
	}
}

func (t *txnSet) firstUnstable() (int64, bool) {
	off, ok := int64(0), false
	if len(t.ongoing) > 0 {
		off, ok = t.ongoing[0].first, true
	}
	if len(t.unreplicated) > 0 && (!ok || t.unreplicated[0].first < off) {
		off, ok = t.unreplicated[0].first, true
	}
	return off, ok
}

// replicated forgets the ended transactions whose marker is below hw.
func (t *txnSet) replicated(hw int64) {
	t.unreplicated = slices.DeleteFunc(t.unreplicated, func(m txnMeta) bool { return m.last < hw })
}

// stageMarker records end-transaction marker mk of batch h into a. Unless
// replicating, a marker from an older producer epoch is refused
// (ErrInvalidProducerEpoch), and so is one from an older coordinator than
// the producer's last marker (ErrCoordinatorFenced).
func (m *ProducerStateManager) stageMarker(a *producerAppend, h *record.BatchHeader, mk txnMarker, origin AppendOrigin) error {
	st := m.stateFor(a, h.ProducerID)
	if origin != OriginReplication {
		if err := st.checkEpoch(h); err != nil {
			return err
		}
		if st.CoordinatorEpoch > mk.coordinatorEpoch {
			return fmt.Errorf("storage: producer %d: marker from coordinator epoch %d, the last one came from %d: %w", h.ProducerID, mk.coordinatorEpoch, st.CoordinatorEpoch, ErrCoordinatorFenced)
		}
	}
	first := st.CurrentTxnFirstOffset
	if first < 0 {
		first = h.BaseOffset
		a.started = append(a.started, txnMeta{pid: h.ProducerID, first: first, last: -1})
	}
	st.maybeUpdateEpoch(h.ProducerEpoch)
	st.CurrentTxnFirstOffset = -1
	st.CoordinatorEpoch = mk.coordinatorEpoch
	st.LastTimestamp = h.MaxTimestamp
	a.completed = append(a.completed, CompletedTxn{ProducerID: h.ProducerID, FirstOffset: first, LastOffset: h.BaseOffset, Aborted: mk.abort})
	return nil
}

// readMarker decodes the marker of control batch b. ok is false for a
// control batch that is no marker (empty after cleaning, or another type):
// the producer state ignores it.
func readMarker(h *record.BatchHeader, b []byte) (txnMarker, bool, error) {
	typ, m, ok, err := record.ReadEndTxnMarker(b)
	if err != nil {
		return txnMarker{}, false, fmt.Errorf("storage: control batch at offset %d: %w: %w", h.BaseOffset, ErrInvalidBatch, err)
	}
	return txnMarker{abort: typ == record.ControlAbort, coordinatorEpoch: m.CoordinatorEpoch}, ok, nil
}

// abortedEntries computes, without changing the state, the index entries
// of the transactions append a aborts (the LSO of each is known only with
// the transactions a begins).
func (m *ProducerStateManager) abortedEntries(a *producerAppend) []AbortedTxn {
	if len(a.completed) == 0 {
		return nil
	}
	m.mu.RLock()
	t := m.txns.clone()
	m.mu.RUnlock()
	var out []AbortedTxn
	t.apply(a, func(e AbortedTxn) { out = append(out, e) })
	return out
}

// FirstUnstableOffset is the first offset of the earliest transaction
// that is open or whose marker is not yet below the high watermark.
func (m *ProducerStateManager) FirstUnstableOffset() (int64, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.txns.firstUnstable()
}

// onHighWatermark forgets the ended transactions replicated below hw.
func (m *ProducerStateManager) onHighWatermark(hw int64) {
	m.mu.Lock()
	m.txns.replicated(hw)
	m.mu.Unlock()
}
