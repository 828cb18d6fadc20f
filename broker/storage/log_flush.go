package storage

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Flush fsyncs every segment holding data at or above the recovery point
// (and the directory when segments were created), then moves the recovery
// point to the log end offset.
func (l *Log) Flush() error { return l.flushTo(math.MaxInt64) }

// flushTo flushes up to target (capped at the log end offset). The fsyncs
// run without the writer lock so appends continue meanwhile; flushMu keeps
// flushes in order, and truncGen keeps a flush that raced a truncation from
// moving the recovery point over data that is no longer the data it synced.
func (l *Log) flushTo(target int64) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	return l.fail(l.flushToLocked(target))
}

// flushToLocked is flushTo; the caller holds flushMu.
func (l *Log) flushToLocked(target int64) error {
	l.mu.Lock()

	if err := l.checkUsableLocked(); err != nil {
		l.mu.Unlock()
		return err
	}
	target = min(target, l.leo.Load())
	rp := l.recoveryPoint.Load()
	if target <= rp && !l.dirDirty {
		l.mu.Unlock()
		return nil
	}
	gen := l.truncGen
	segs := l.segments()
	var todo []*segment
	for i, s := range segs {
		if s.base >= target {
			break
		}
		if i+1 < len(segs) && segs[i+1].base <= rp {
			continue
		}
		todo = append(todo, s)
	}
	dirDirty := l.dirDirty
	l.dirDirty = false
	l.mu.Unlock()

	start := time.Now()
	var errs []error
	for _, s := range todo {
		if err := s.flush(l.health); err != nil && !s.deleted.Load() {
			// Fail-stop: nothing more is synced after a failed sync.
			errs = append(errs, err)
			break
		}
	}
	if dirDirty && len(errs) == 0 {
		if err := l.syncLogDir(); err != nil {
			errs = append(errs, err)
		}
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if len(errs) > 0 {
		// Never retried: the log fails (see log_failure.go).
		return fmt.Errorf("storage: flush %s: %w", l.tp, errors.Join(errs...))
	}
	if gen == l.truncGen && target > l.recoveryPoint.Load() {
		l.recoveryPoint.Store(target)
	}
	l.lastFlushMs.Store(l.nowMs())
	if l.onFlush != nil {
		l.onFlush(time.Since(start))
	}
	return nil
}

// flushIfDue applies flush.ms: flush when unflushed data is older than it.
func (l *Log) flushIfDue(nowMs int64) error {
	cfg := l.cfg.Load()
	if cfg.FlushMs == math.MaxInt64 || l.leo.Load() <= l.recoveryPoint.Load() {
		return nil
	}
	if nowMs-l.lastFlushMs.Load() < cfg.FlushMs {
		return nil
	}
	return l.Flush()
}

// maxSyncsInFlight bounds the group-commit syncs of one log running at
// once: two lets a new group start while the previous one's sync finishes
// (the file system merges overlapping syncs of a file into one journal
// commit), while appends arriving meanwhile wait and share the next sync.
const maxSyncsInFlight = 2

// flushCovering makes the offsets below need durable, as flush.messages
// asks of an append: group commit. An appender whose append a sync in
// flight already covers waits for that sync instead of starting its own;
// one that is not covered starts a sync of everything appended so far,
// when fewer than maxSyncsInFlight are running, else waits for one to end
// and looks again. Under concurrent producers one fsync covers many
// appends; a lone producer pays one per append, as before. After a roll
// (older segments or the directory still to sync) it falls back to the
// ordered flush.
func (l *Log) flushCovering(need int64) error {
	l.gcMu.Lock()
	for l.recoveryPoint.Load() < need && l.health.failure() == nil && ((l.gcInflight > 0 && l.gcCovers >= need) || l.gcInflight >= maxSyncsInFlight) {
		l.gcCond.Wait()
	}
	if l.recoveryPoint.Load() >= need {
		l.gcMu.Unlock()
		return nil
	}
	l.mu.Lock()
	// A sync this append waited on failed (or any other in the dir): the
	// error, never a second sync.
	if err := l.checkUsableLocked(); err != nil {
		l.mu.Unlock()
		l.gcMu.Unlock()
		return err
	}
	target, gen, seg := l.leo.Load(), l.truncGen, l.active()
	ordered := l.dirDirty || seg.base > l.recoveryPoint.Load()
	l.mu.Unlock()
	if ordered {
		l.gcMu.Unlock()
		l.flushMu.Lock()
		defer l.flushMu.Unlock()
		if l.recoveryPoint.Load() >= need {
			return nil // the flush before ours covered it
		}
		return l.fail(l.flushToLocked(math.MaxInt64))
	}
	l.gcInflight++
	l.gcCovers = max(l.gcCovers, target)
	l.gcMu.Unlock()

	start := time.Now()
	err := seg.flush(l.health)
	if err == nil {
		l.mu.Lock()
		if gen == l.truncGen && target > l.recoveryPoint.Load() {
			l.recoveryPoint.Store(target)
			l.lastFlushMs.Store(l.nowMs())
		}
		l.mu.Unlock()
		// Timed like every other flush (LogFlushRateAndTimeMs): with
		// flush.messages=1 these group-commit syncs are most flushes.
		if l.onFlush != nil {
			l.onFlush(time.Since(start))
		}
	}

	if err != nil {
		// Before the waiters wake: they must see the failure, not start
		// a sync of their own over data whose sync just failed.
		err = l.fail(fmt.Errorf("storage: flush %s: %w", l.tp, err))
	}
	l.gcMu.Lock()
	l.gcInflight--
	if err != nil || l.gcInflight == 0 {
		l.gcCovers = l.recoveryPoint.Load()
	}
	l.gcCond.Broadcast()
	l.gcMu.Unlock()
	return err
}
