package replica

import (
	"context"
	"sync/atomic"
	"time"

	"kafgo/broker/storage"
)

// A delayed fetch (Kafka's DelayedFetch) is a fetch that found fewer than
// fetch.min.bytes and waits, up to fetch.max.wait, for more. Whether enough
// has arrived is decided from offset positions alone, never by reading the
// log: each partition's watcher knows where its fetch offset lies (segment
// and byte position) and, on every change of the offset its reader reads up
// to (the LEO for a follower, the HW for a consumer, the LSO for a
// read_committed one), adds the bytes now between the two, capped by the
// partition's max bytes. The fetch completes when the sum reaches
// min.bytes, when a partition's end moves to another segment than its
// fetch offset (a roll, or a truncation), or when leadership changes; only
// then is the log read, once.
//
// The watchers run on the goroutine that changed the partition (the
// produce or the follower fetch that moved the end), so a fetch that is
// not complete yet costs that goroutine a few loads and a subtraction and
// is never woken for nothing: with hundreds of groups long-polling one
// partition, an append would otherwise wake them all, each to re-check
// every partition it fetches.
type delayedFetch struct {
	minBytes int64
	total    atomic.Int64
	done     wakeChan
}

// endKind is the offset a fetch reads up to.
type endKind uint8

const (
	endLEO endKind = iota // followers
	endHW                 // consumers, read_uncommitted
	endLSO                // consumers, read_committed
)

// fetchWatch watches one partition of a delayed fetch.
type fetchWatch struct {
	df       *delayedFetch
	p        *Partition
	end      endKind
	fetch    storage.OffsetPosition
	maxBytes int64
	// held: a follower outside the ISR reading a leader-throttled
	// partition; its bytes do not count while the leader quota is
	// exceeded (Kafka's shouldLeaderThrottle).
	held    bool
	contrib atomic.Int64 // bytes counted in df.total so far
}

func (w *fetchWatch) changed(ev event) {
	if ev&evState != 0 {
		w.df.done.changed(ev)
		return
	}
	w.update()
}

// update recounts the partition's bytes against the end offset's current
// position and completes the fetch when that is enough.
func (w *fetchWatch) update() {
	end, ok := w.endPosition()
	if !ok {
		w.df.done.changed(evState)
		return
	}
	if end.Offset == w.fetch.Offset {
		return
	}
	var n int64
	switch {
	case end.OnOlderSegment(w.fetch):
		// The log was truncated below the fetch position.
		w.df.done.changed(evState)
		return
	case w.fetch.OnOlderSegment(end):
		// The fetch is behind the active segment, or the log just
		// rolled: there is data to read (Kafka completes at once).
		if !w.throttledNow() {
			w.df.done.changed(evState)
		}
		return
	case w.fetch.Offset < end.Offset:
		n = min(end.Pos-w.fetch.Pos, w.maxBytes)
		if w.throttledNow() {
			n = 0
		}
	default:
		return
	}
	// Ends only grow while the partition keeps its leadership (a change
	// of it wakes the fetch), so the count only goes up.
	for {
		old := w.contrib.Load()
		if n <= old {
			return
		}
		if w.contrib.CompareAndSwap(old, n) {
			if w.df.total.Add(n-old) >= w.df.minBytes {
				w.df.done.changed(evAppend)
			}
			return
		}
	}
}

func (w *fetchWatch) throttledNow() bool {
	return w.held && w.p.m.cfg.LeaderQuota.IsExceeded()
}

func (w *fetchWatch) endPosition() (storage.OffsetPosition, bool) {
	l := w.p.log
	switch w.end {
	case endLEO:
		return l.PositionOf(l.LogEndOffset())
	case endLSO:
		return l.LastStablePosition(l.HighWatermark())
	default:
		return l.HighWatermarkPosition()
	}
}

// waitForFetch waits until the fetch whose first read gave results can
// complete, or MaxWait passes. It returns false when the fetch should not
// be read again (the request's context ended, or the manager stops).
func (m *Manager) waitForFetch(ctx context.Context, req FetchRequest, results []FetchResult) bool {
	df := &delayedFetch{minBytes: int64(req.MinBytes), done: make(wakeChan, 1)}
	kind, interest := endHW, evHW
	switch {
	case req.ReplicaID >= 0:
		kind, interest = endLEO, evAppend
	case req.ReadCommitted:
		kind = endLSO
	}
	watches := make([]*fetchWatch, 0, len(req.Partitions))
	for i, fp := range req.Partitions {
		p, ok := m.Partition(fp.TP)
		if !ok {
			return true // gone since the read: answer now
		}
		pos, ok := p.log.PositionOf(fp.FetchOffset)
		if !ok {
			return true
		}
		r := &results[i]
		w := &fetchWatch{df: df, p: p, end: kind, fetch: pos, maxBytes: int64(fp.MaxBytes), held: r.throttled && r.outsideISR}
		p.changed.add(w, interest|evState)
		defer p.changed.remove(w)
		watches = append(watches, w)
	}
	// Registered first, then counted: a change landing in between is
	// counted by its watcher, and one before by this count.
	for _, w := range watches {
		w.update()
	}
	if m.beforeWait != nil {
		m.beforeWait()
	}
	timer := time.NewTimer(req.MaxWait)
	defer timer.Stop()
	select {
	case <-df.done:
	case <-timer.C:
	case <-ctx.Done():
		return false
	case <-m.stop:
		return false
	}
	return true
}
