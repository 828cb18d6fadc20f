package storage

import (
	"cmp"
	"fmt"
	"slices"

	"kafgo/broker/record"
)

// cleanedTxns follows transactions while the cleaner walks batches in
// offset order (Kafka's CleanedTransactionMetadata). It is seeded with the
// aborted transactions of the transaction indexes over the walked range:
//
//   - a transactional data batch of an aborted transaction is discardable
//     (its records are never read by a read_committed consumer, and a
//     read_uncommitted one may see them or not); one of a transaction not
//     known aborted marks its producer's transaction as having data;
//   - an ABORT marker whose transaction had data in the walk must stay, and
//     its index entry goes to the cleaned segment's transaction index
//     (consumers still need it to drop records kept meanwhile); without
//     data it is discardable and its entry is dropped;
//   - a COMMIT marker is discardable when no data of its transaction was
//     walked, as is an empty control batch.
//
// A discardable marker is still kept until delete.retention.ms has passed
// (see batchFilter), so a consumer that read the data before it was
// cleaned still sees the marker.
type cleanedTxns struct {
	pending   []AbortedTxn // aborted transactions not reached yet, by first offset
	aborted   map[int64]*abortedWalk
	committed map[int64]bool // producers with data of a transaction not known aborted
	kept      []AbortedTxn   // index entries of retained ABORT markers, in order
}

type abortedWalk struct {
	txn     AbortedTxn
	hasData bool
}

func newCleanedTxns(aborted []AbortedTxn) *cleanedTxns {
	p := slices.Clone(aborted)
	slices.SortStableFunc(p, func(a, b AbortedTxn) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	return &cleanedTxns{pending: p, aborted: map[int64]*abortedWalk{}, committed: map[int64]bool{}}
}

// reach makes the aborted transactions starting at or before offset current.
func (c *cleanedTxns) reach(offset int64) {
	for len(c.pending) > 0 && c.pending[0].FirstOffset <= offset {
		t := c.pending[0]
		c.pending = c.pending[1:]
		if _, ok := c.aborted[t.ProducerID]; !ok {
			c.aborted[t.ProducerID] = &abortedWalk{txn: t}
		}
	}
}

// onData takes data batch h; it reports whether h belongs to an aborted
// transaction (its records may all go).
func (c *cleanedTxns) onData(h *record.BatchHeader) bool {
	c.reach(h.LastOffset())
	if !h.IsTransactional() {
		return false
	}
	if w, ok := c.aborted[h.ProducerID]; ok {
		w.hasData = true
		return true
	}
	c.committed[h.ProducerID] = true
	return false
}

// onControl takes control batch h (bytes b); it reports whether the marker
// may be discarded once its delete horizon passes.
func (c *cleanedTxns) onControl(h *record.BatchHeader, b []byte) (bool, error) {
	c.reach(h.LastOffset())
	if h.RecordCount == 0 {
		return true, nil // emptied by an earlier pass
	}
	typ, _, ok, err := record.ReadEndTxnMarker(b)
	if err != nil {
		return false, fmt.Errorf("storage: clean: control batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	if !ok {
		return false, nil // a control record of another kind: kept
	}
	pid := h.ProducerID
	if typ == record.ControlAbort {
		w, found := c.aborted[pid]
		delete(c.aborted, pid)
		if found && w.hasData {
			c.kept = append(c.kept, w.txn)
			return false, nil
		}
		return true, nil
	}
	had := c.committed[pid]
	delete(c.committed, pid)
	return !had, nil
}

// takeKept returns the index entries kept so far and forgets them.
func (c *cleanedTxns) takeKept() []AbortedTxn {
	k := c.kept
	c.kept = nil
	return k
}

// collectAborted lists the transaction index entries of segs overlapping
// [from, upper) (see Log.AbortedTransactions).
func collectAborted(segs []*segment, from, upper int64) ([]AbortedTxn, error) {
	out := []AbortedTxn{}
	for i := max(findSegment(segs, from), 0); i < len(segs); i++ {
		var done bool
		var err error
		if out, done, err = segs[i].txnIdx.collect(from, upper, out); err != nil || done {
			return out, err
		}
	}
	return out, nil
}
