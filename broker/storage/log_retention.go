package storage

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// DeleteRetainedSegments applies retention, oldest segment first, stopping
// at the first segment that must stay, as Kafka's deleteOldSegments:
//   - retention.ms: the segment's largest timestamp is older than now minus
//     retention.ms;
//   - retention.bytes: deleting it still leaves at least retention.bytes;
//   - the segment lies wholly below the log start offset.
//
// The active segment is never deleted, nor a segment holding offsets at or
// above the high watermark (when one was set). The log start moves up to the
// first remaining segment. Deleted segments are renamed *.deleted and their
// files removed after file.delete.delay.ms, so readers holding their regions
// keep working meanwhile.
func (l *Log) DeleteRetainedSegments() (deleted int, err error) {
	n, err := l.deleteRetainedSegments()
	return n, l.fail(err)
}

func (l *Log) deleteRetainedSegments() (deleted int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkUsableLocked(); err != nil {
		return 0, err
	}
	cfg := l.cfg.Load()
	now := l.nowMs()
	segs := l.segments()
	bound := l.leo.Load()
	if hw := l.highWatermark.Load(); hw >= 0 && hw < bound {
		bound = hw
	}
	// A segment is eligible only when it is not the active one and its
	// upper bound (the next segment's base) is within the bound.
	eligible := func(i int) bool { return i+1 < len(segs) && segs[i+1].base <= bound }
	n := 0
	if cfg.RetentionMs >= 0 {
		for eligible(n) && now-segs[n].largestTimestamp() > cfg.RetentionMs {
			n++
		}
	}
	if cfg.RetentionBytes >= 0 {
		var size int64
		for _, s := range segs[n:] {
			size += s.size.Load()
		}
		if size >= cfg.RetentionBytes {
			diff := size - cfg.RetentionBytes
			for eligible(n) && diff-segs[n].size.Load() >= 0 {
				diff -= segs[n].size.Load()
				n++
			}
		}
	}
	ls := l.logStart.Load()
	for eligible(n) && segs[n+1].base <= ls {
		n++
	}
	if n == 0 {
		return 0, nil
	}
	var errs []error
	if newStart := segs[n].base; newStart > ls {
		l.logStart.Store(newStart)
		if err := l.epochs.TruncateFromStart(newStart); err != nil {
			errs = append(errs, err)
		}
		if err := l.producers.deleteSnapshots(func(o int64) bool { return o < newStart }); err != nil {
			errs = append(errs, err)
		}
	}
	l.publishSegments(slices.Clone(segs[n:]))
	l.logger.Info("storage: deleting segments by retention", "count", n, "log_start", l.logStart.Load())
	if err := l.retireSegmentsLocked(segs[:n]); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("storage: %s: retention: %w", l.tp, err)
	}
	return n, nil
}

// retireSegmentsLocked renames segments already unpublished to *.deleted and
// schedules their removal. A rename that fails is an I/O error for the
// caller to fail on (the segments are unpublished all the same).
func (l *Log) retireSegmentsLocked(segs []*segment) error {
	var errs []error
	for _, s := range segs {
		s.deleted.Store(true)
		if err := s.renameSuffix(deletedSuffix); err != nil {
			// Its files keep live names: removing them would delete
			// data the next open needs (a cleaner's swap not yet
			// complete, a truncation the dir failed in).
			errs = append(errs, err)
			continue
		}
		l.scheduleDelete(s)
	}
	if len(segs) > 0 {
		l.dirDirty = true
	}
	return errors.Join(errs...)
}

// scheduleDelete closes and removes s after file.delete.delay.ms. Whoever
// takes s out of pending (the timer or Close) does the removal.
func (l *Log) scheduleDelete(s *segment) {
	delay := time.Duration(l.cfg.Load().FileDeleteDelayMs) * time.Millisecond
	l.pendingMu.Lock()
	defer l.pendingMu.Unlock()
	if l.pending == nil {
		l.pending = map[*segment]*time.Timer{}
	}
	l.deleters.Add(1)
	l.pending[s] = time.AfterFunc(delay, func() {
		l.pendingMu.Lock()
		_, mine := l.pending[s]
		delete(l.pending, s)
		l.pendingMu.Unlock()
		if !mine {
			return
		}
		defer l.deleters.Done()
		if l.Err() != nil {
			s.close() // a failed dir is not written to; the next open removes the files
			return
		}
		if err := s.removeFiles(); err != nil {
			l.logger.Warn("storage: remove retired segment", "segment", s.logPath, "err", err)
			l.fail(err)
		}
	})
}

// finishPendingDeletes removes every retired segment now (on close) and
// waits for timers already doing so.
func (l *Log) finishPendingDeletes() {
	l.pendingMu.Lock()
	todo := l.pending
	l.pending = nil
	l.pendingMu.Unlock()
	for s, t := range todo {
		t.Stop()
		if l.Err() != nil {
			s.close()
			l.deleters.Done()
			continue
		}
		if err := s.removeFiles(); err != nil {
			l.logger.Warn("storage: remove retired segment", "segment", s.logPath, "err", err)
		}
		l.deleters.Done()
	}
	l.deleters.Wait()
}
