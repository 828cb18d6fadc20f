package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"kafgo/broker/record"
)

// errCleanAborted: the log changed under a cleaning pass (closed,
// truncated, segments deleted by retention) or the cleaner is stopping; the
// pass left the log as it was and may simply run again later.
var errCleanAborted = errors.New("storage: cleaning aborted")

// errMapTooSmall: the offset map cannot hold the keys of even one batch.
var errMapTooSmall = errors.New("storage: log.cleaner.dedupe.buffer.size holds fewer keys than one batch")

// CleanStats describes one cleaning pass of one log.
type CleanStats struct {
	FirstDirty, EndOffset int64 // the pass mapped [FirstDirty, EndOffset)
	MappedBytes           int64 // bytes of dirty batches read into the offset map
	Segments, Groups      int   // source segments rewritten, destination segments written
	BytesRead             int64 // bytes of source segments rewritten
	BytesWritten          int64
	BatchesRead           int64
	BatchesWritten        int64
	RecordsRead           int64
	RecordsKept           int64
	Duration              time.Duration
}

// cleanParams carries what the caller of Log.clean decides.
type cleanParams struct {
	firstDirty int64      // where the dirty section starts (cleaner checkpoint)
	om         *offsetMap // reset and filled by the pass
	writeBuf   int        // bytes buffered before a write to a cleaned segment
}

// cleanResult is what a pass tells the cleaner.
type cleanResult struct {
	checkpoint int64 // the new cleaner checkpoint
	horizon    int64 // earliest delete horizon still pending, math.MaxInt64 when none
	gen        uint64
	stats      CleanStats
}

// cleanSnapshot is the log state a pass works from.
type cleanSnapshot struct {
	segs               []*segment
	leo, logStart, hwm int64
	lso                int64 // the last stable offset at hwm (hwm >= 0)
	gen                uint64
}

func (l *Log) cleanSnapshotLocked() cleanSnapshot {
	s := cleanSnapshot{segs: l.segments(), leo: l.leo.Load(), logStart: l.logStart.Load(), hwm: l.highWatermark.Load(), gen: l.truncGen}
	s.lso = l.LastStableOffset(s.hwm)
	return s
}

// beginClean takes a snapshot of the log and registers the pass with the
// log's background work, so Close waits for it (the pass checks for Close
// and stops within a few batches).
func (l *Log) beginClean() (cleanSnapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return cleanSnapshot{}, err
	}
	l.bg.Add(1)
	return l.cleanSnapshotLocked(), nil
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// firstDirtyOffset clamps a cleaner checkpoint to the log as Kafka's
// cleanableOffsets does: below the log start (retention, DeleteRecords) or
// beyond the end (a replaced log) it restarts at the log start.
func firstDirtyOffset(checkpoint int64, snap *cleanSnapshot) int64 {
	if checkpoint < snap.logStart || checkpoint > snap.leo {
		return snap.logStart
	}
	return checkpoint
}

// firstUncleanableOffset is where cleaning must stop: the active segment,
// the last stable offset (at most the high watermark: what consumers may
// not have read can still be truncated, and an undecided transaction's
// records cannot be judged), and with min.compaction.lag.ms the first
// dirty segment holding a record younger than the lag.
func firstUncleanableOffset(snap *cleanSnapshot, cfg *LogConfig, firstDirty, now int64) int64 {
	act := snap.segs[len(snap.segs)-1]
	off := min(act.base, snap.leo)
	if snap.hwm >= 0 {
		off = min(off, snap.hwm, snap.lso)
	}
	if cfg.MinCompactionLagMs > 0 {
		for i := max(findSegment(snap.segs, firstDirty), 0); i < len(snap.segs)-1; i++ {
			if s := snap.segs[i]; s.largestTimestamp() > now-cfg.MinCompactionLagMs {
				off = min(off, s.base)
				break
			}
		}
	}
	return off
}

// clean runs one cleaning pass (Kafka's Cleaner.doClean): map the latest
// offset of each key over [firstDirty, firstUncleanable), then rewrite every
// closed segment below the mapped end, grouped into destination segments,
// each swapped in atomically. It returns the new checkpoint: the end of what
// was mapped. ctx ends the pass between batches.
//
// An I/O error of the pass takes the dir offline like any other (Kafka's
// LogCleaner reports it to the LogDirFailureChannel).
func (l *Log) clean(ctx context.Context, p cleanParams) (cleanResult, error) {
	res, err := l.cleanPass(ctx, p)
	return res, l.fail(err)
}

func (l *Log) cleanPass(ctx context.Context, p cleanParams) (cleanResult, error) {
	start := time.Now()
	snap, err := l.beginClean()
	if err != nil {
		return cleanResult{}, err
	}
	defer l.bg.Done()
	cfg := l.Config()
	now := l.nowMs()
	res := cleanResult{horizon: math.MaxInt64, gen: snap.gen}
	st := &res.stats
	firstDirty := firstDirtyOffset(p.firstDirty, &snap)
	firstUncleanable := firstUncleanableOffset(&snap, &cfg, firstDirty, now)
	st.FirstDirty = firstDirty

	p.om.reset()
	end := min(firstDirty, firstUncleanable)
	if firstUncleanable > firstDirty {
		var full bool
		if end, full, err = l.buildOffsetMap(ctx, &snap, firstDirty, firstUncleanable, p.om, st); err != nil {
			return res, err
		}
		if full && end <= firstDirty {
			return res, fmt.Errorf("storage: %s: clean from %d: %w", l.tp, firstDirty, errMapTooSmall)
		}
	}
	st.EndOffset = end
	res.checkpoint = max(firstDirty, end)

	// The sources are a prefix of the log: every closed segment below end.
	var srcs []*segment
	var uppers []int64
	for i, s := range snap.segs[:len(snap.segs)-1] {
		if s.base < end {
			srcs = append(srcs, s)
			uppers = append(uppers, snap.segs[i+1].base)
		}
	}
	f := &batchFilter{om: p.om, end: end, now: now, deleteRetention: cfg.DeleteRetentionMs, horizon: math.MaxInt64, stats: st}
	f.producerLast = map[int64]producerTail{}
	for _, ps := range l.producers.Producers() {
		f.producerLast[ps.ProducerID] = producerTail{lastData: ps.LastOffset(), epoch: ps.Epoch}
	}
	// One transaction walk over the whole rewritten prefix, so a marker
	// sees the data of its transaction even in an earlier group.
	var aborted []AbortedTxn
	if len(srcs) > 0 {
		if aborted, err = collectAborted(snap.segs, srcs[0].base, uppers[len(uppers)-1]); err != nil {
			return res, l.cleanReadError(err)
		}
	}
	f.txns = newCleanedTxns(aborted)
	for len(srcs) > 0 {
		if err := l.checkCleanable(ctx); err != nil {
			return res, err
		}
		n, err := l.cleanGroup(ctx, srcs, uppers, &cfg, &snap, f, p.writeBuf)
		if err != nil {
			return res, err
		}
		srcs, uppers = srcs[n:], uppers[n:]
		st.Groups++
		st.Segments += n
	}
	res.horizon = f.horizon
	st.Duration = time.Since(start)
	return res, nil
}

// checkCleanable ends a pass when the cleaner stops or the log closes.
func (l *Log) checkCleanable(ctx context.Context) error {
	if ctx.Err() != nil || l.isClosed() {
		return fmt.Errorf("storage: %s: %w", l.tp, errCleanAborted)
	}
	// A dir that failed meanwhile is written no more.
	return l.Err()
}

// buildOffsetMap reads the batches of [firstDirty, firstUncleanable) into om
// (Kafka's buildOffsetMap), skipping control batches and the batches of
// aborted transactions. It returns end, the
// offset below which every batch is mapped: firstUncleanable when all of
// them fit, the start of a batch that crosses firstUncleanable, or with
// full set the start of the batch that did not fit the map.
func (l *Log) buildOffsetMap(ctx context.Context, snap *cleanSnapshot, firstDirty, firstUncleanable int64, om *offsetMap, st *CleanStats) (end int64, full bool, err error) {
	end = firstDirty
	segs := snap.segs
	batches := 0
	// Records of aborted transactions never enter the map: they must not
	// shadow the committed records of their keys.
	aborted, err := collectAborted(segs, firstDirty, firstUncleanable)
	if err != nil {
		return end, false, l.cleanReadError(err)
	}
	txns := newCleanedTxns(aborted)
	for i := max(findSegment(segs, firstDirty), 0); i < len(segs)-1 && segs[i].base < firstUncleanable; i++ {
		s := segs[i]
		size := s.size.Load()
		pos := int64(0)
		if s.base < firstDirty {
			p, _, found, err := s.translateOffset(firstDirty, size)
			if err != nil {
				return end, false, l.cleanReadError(err)
			}
			if !found {
				continue
			}
			pos = p
		}
		sc := newBatchScanner(s.log, s.name, pos, size)
		for {
			h, _, b, err := sc.next(true)
			if isEOF(err) {
				break
			}
			if err != nil {
				return end, false, l.cleanReadError(err)
			}
			if h.LastOffset() >= firstUncleanable {
				return max(end, min(h.BaseOffset, firstUncleanable)), false, nil
			}
			if batches++; batches%256 == 0 {
				if err := l.checkCleanable(ctx); err != nil {
					return end, false, err
				}
			}
			switch {
			case h.IsControl():
				if _, err := txns.onControl(&h, b); err != nil {
					return end, false, l.cleanReadError(err)
				}
			case txns.onData(&h):
			default:
				stop, err := mapBatch(b, &h, firstDirty, om)
				if err != nil {
					return end, false, l.cleanReadError(err)
				}
				if stop {
					return end, true, nil
				}
				st.MappedBytes += int64(len(b))
			}
			end = max(end, h.NextOffset())
		}
	}
	return firstUncleanable, false, nil
}

// mapBatch puts the keyed records at or above from into om; full reports a
// key that did not fit (the records before it are in the map, which is
// harmless: their offsets are beyond the end the caller reports).
func mapBatch(b []byte, h *record.BatchHeader, from int64, om *offsetMap) (full bool, err error) {
	_, it, err := record.IterRecords(b, maxDecompressedBatch)
	if err != nil {
		return false, fmt.Errorf("storage: clean: map batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	hs, offs := om.hs[:0], om.offs[:0]
	for it.Next() {
		r := it.Record()
		if off := h.OffsetOf(r); r.Key != nil && off >= from {
			hs = append(hs, om.hash(r.Key))
			offs = append(offs, off)
		}
	}
	om.hs, om.offs = hs, offs
	if err := it.Err(); err != nil {
		return false, fmt.Errorf("storage: clean: map batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	om.prefetch(hs)
	for i := range hs {
		if !om.putHash(hs[i], offs[i]) {
			return true, nil
		}
	}
	return false, nil
}

// cleanReadError turns a read failure of a source segment into an abort
// when the log changed meanwhile (a truncated or deleted segment reads
// short), and leaves it an error otherwise.
func (l *Log) cleanReadError(err error) error {
	if l.isClosed() {
		return fmt.Errorf("storage: %s: %w: %w", l.tp, errCleanAborted, err)
	}
	return err
}
