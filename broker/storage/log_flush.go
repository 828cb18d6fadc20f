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

	l.mu.Lock()
	if err := l.checkOpenLocked(); err != nil {
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
		if err := s.flush(); err != nil && !s.deleted.Load() {
			errs = append(errs, err)
		}
	}
	if dirDirty {
		if err := syncDir(l.dir); err != nil {
			errs = append(errs, err)
		}
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if len(errs) > 0 {
		l.dirDirty = l.dirDirty || dirDirty
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
