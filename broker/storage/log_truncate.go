package storage

import (
	"errors"
	"fmt"
	"slices"
)

// TruncateTo drops every batch at or after offset (follower truncation). A
// batch that straddles offset is dropped whole, so the new log end offset
// may be below offset. The leader epoch cache loses the entries starting at
// or after the new end and the producer state is rebuilt from the newest
// snapshot at or below it. Offsets at or beyond the log end keep every
// batch but still trim the epoch cache from the log end, as Kafka's
// truncateTo does: a broker that was elected leader and assigned an epoch
// at its log end without appending must drop that entry when it follows,
// or its fetches keep naming an epoch the leader never wrote.
func (l *Log) TruncateTo(offset int64) error { return l.fail(l.truncateTo(offset)) }

func (l *Log) truncateTo(offset int64) error {
	if offset < 0 {
		return fmt.Errorf("storage: %s: truncate to negative offset %d", l.tp, offset)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return err
	}
	if leo := l.leo.Load(); offset >= leo {
		return l.epochs.TruncateFromEnd(leo)
	}
	segs := l.segments()
	if offset < segs[0].base {
		return l.truncateFullyAndStartAtLocked(offset)
	}
	l.truncGen++
	cfg := l.cfg.Load()
	i := findSegment(segs, offset)
	keep, drop := slices.Clone(segs[:i+1]), segs[i+1:]
	// Lower the published end first so readers stop before what goes.
	l.leo.Store(offset)
	l.publishSegments(keep)
	if err := l.retireSegmentsLocked(drop); err != nil {
		return fmt.Errorf("storage: %s: truncate to %d: %w", l.tp, offset, err)
	}
	s := keep[len(keep)-1]
	newEnd, err := s.truncateTo(offset, cfg, l.nowMs())
	if err != nil {
		return fmt.Errorf("storage: %s: truncate to %d: %w", l.tp, offset, err)
	}
	l.leo.Store(newEnd)
	if l.recoveryPoint.Load() > newEnd {
		l.recoveryPoint.Store(newEnd)
	}
	if l.logStart.Load() > newEnd {
		l.logStart.Store(newEnd)
	}
	var errs []error
	if err := l.epochs.TruncateFromEnd(newEnd); err != nil {
		errs = append(errs, err)
	}
	if err := l.rebuildProducerStateLocked(newEnd, -1); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// TruncateFullyAndStartAt discards the whole log and starts an empty one at
// offset (a follower far behind the leader's log start). The epoch cache
// and producer state are cleared.
func (l *Log) TruncateFullyAndStartAt(offset int64) error {
	return l.fail(l.truncateFullyAndStartAt(offset))
}

func (l *Log) truncateFullyAndStartAt(offset int64) error {
	if offset < 0 {
		return fmt.Errorf("storage: %s: start at negative offset %d", l.tp, offset)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return err
	}
	return l.truncateFullyAndStartAtLocked(offset)
}

func (l *Log) truncateFullyAndStartAtLocked(offset int64) error {
	l.truncGen++
	old := l.segments()
	// Retire the old segments first: one of them may own the file name the
	// new segment needs.
	l.leo.Store(min(l.leo.Load(), offset))
	for _, s := range old {
		s.deleted.Store(true)
		if err := s.renameSuffix(deletedSuffix); err != nil {
			return fmt.Errorf("storage: %s: start at %d: %w", l.tp, offset, err)
		}
	}
	ns, err := createSegment(l.fs, l.dir, offset, l.cfg.Load(), l.nowMs(), l.logger)
	if err != nil {
		// Put the old log back as it was; it is still published.
		for _, s := range old {
			if rerr := s.stripSuffix(deletedSuffix); rerr != nil {
				l.logger.Error("storage: restore segment after failed truncation", "segment", s.logPath, "err", rerr)
			}
			s.deleted.Store(false)
		}
		l.leo.Store(old[len(old)-1].next)
		return fmt.Errorf("storage: %s: start at %d: %w", l.tp, offset, err)
	}
	l.publishSegments([]*segment{ns})
	for _, s := range old {
		l.scheduleDelete(s)
	}
	l.dirDirty = true
	l.leo.Store(offset)
	l.logStart.Store(offset)
	l.recoveryPoint.Store(offset)
	var errs []error
	if err := l.epochs.Clear(); err != nil {
		errs = append(errs, err)
	}
	l.producers.reset(offset)
	if err := l.producers.deleteSnapshots(func(int64) bool { return true }); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// SetLogStartOffset moves the log start up (DeleteRecords): never back, and
// not beyond the log end offset. Segments wholly below it are deleted
// (except the active one), the epoch cache is truncated from the start and
// producer snapshots below it are removed.
func (l *Log) SetLogStartOffset(offset int64) error { return l.fail(l.setLogStartOffset(offset)) }

func (l *Log) setLogStartOffset(offset int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return err
	}
	if leo := l.leo.Load(); offset > leo {
		return fmt.Errorf("storage: %s: log start %d beyond the log end %d: %w", l.tp, offset, leo, ErrOffsetOutOfRange)
	}
	if offset <= l.logStart.Load() {
		return nil
	}
	return l.advanceLogStartLocked(offset)
}

// advanceLogStartLocked sets the log start to offset (> current) and drops
// what lies wholly below it.
func (l *Log) advanceLogStartLocked(offset int64) error {
	l.logStart.Store(offset)
	var errs []error
	if err := l.epochs.TruncateFromStart(offset); err != nil {
		errs = append(errs, err)
	}
	if err := l.producers.deleteSnapshots(func(o int64) bool { return o < offset }); err != nil {
		errs = append(errs, err)
	}
	segs := l.segments()
	n := 0
	for n+1 < len(segs) && segs[n+1].base <= offset {
		n++
	}
	if n > 0 {
		l.publishSegments(slices.Clone(segs[n:]))
		if err := l.retireSegmentsLocked(segs[:n]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rebuildProducerStateLocked reloads the producer state: the newest usable
// snapshot at or below limit, then every batch after it up to the log end.
// Snapshots beyond the log end describe data that is gone and are removed.
// Ended transactions wait for the high watermark as after any append.
//
// With txnFrom >= 0 the transaction indexes of the segments from the one
// based at txnFrom on are rebuilt too (Kafka recovers them with the
// segment, from the producer state at its base): they are emptied, the
// snapshot used is at or below txnFrom, and each abort replayed in them is
// indexed again.
func (l *Log) rebuildProducerStateLocked(limit, txnFrom int64) error {
	leo := l.leo.Load()
	if err := l.producers.deleteSnapshots(func(o int64) bool { return o > leo }); err != nil {
		l.logger.Warn("storage: cannot delete stale producer snapshots", "err", err)
	}
	segs := l.segments()
	if txnFrom >= 0 {
		limit = min(limit, txnFrom)
		for _, s := range segs {
			if s.base >= txnFrom {
				if err := s.txnIdx.reset(); err != nil {
					return err
				}
			}
		}
	}
	from, ok := l.producers.loadLatestSnapshot(min(limit, leo))
	if !ok {
		from = l.logStart.Load()
		l.producers.reset(from)
	}
	from = max(from, segs[0].base)
	pa := &l.pstage
	for i := max(findSegment(segs, from), 0); i < len(segs); i++ {
		s := segs[i]
		size := s.size.Load()
		start := int64(0)
		if s.base < from {
			pos, _, found, err := s.translateOffset(from, size)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			start = pos
		}
		indexing := txnFrom >= 0 && s.base >= txnFrom
		sc := newBatchScanner(s.log, s.logPath, start, size)
		for {
			h, pos, _, err := sc.next(false)
			if err != nil {
				if isEOF(err) {
					break
				}
				return fmt.Errorf("storage: %s: replay producer state: %w", l.tp, err)
			}
			if h.BaseOffset >= leo {
				break
			}
			if h.ProducerID < 0 {
				continue
			}
			var body []byte
			if h.IsControl() {
				// Only a marker's record matters; read it.
				if body, err = sc.window(pos, int64(h.Size())); err != nil {
					return fmt.Errorf("storage: %s: replay producer state: %w", l.tp, err)
				}
			}
			pa.reset()
			if err := l.producers.stage(pa, &h, body, OriginReplication); err != nil {
				// A marker whose record does not decode: Kafka would fail
				// the load; skipping it keeps the rest of the log usable.
				l.logger.Warn("storage: skipping undecodable batch in producer state replay", "offset", h.BaseOffset, "err", err)
				continue
			}
			if indexing {
				if err := s.txnIdx.append(l.producers.abortedEntries(pa)); err != nil {
					return err
				}
			}
			l.producers.commit(pa, h.NextOffset())
		}
	}
	l.producers.setMapEnd(leo)
	if hw := l.highWatermark.Load(); hw >= 0 {
		l.producers.onHighWatermark(hw)
	}
	return nil
}
