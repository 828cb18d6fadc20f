package storage

import (
	"sync"
	"sync/atomic"
)

// tailIndexOff makes every lookup miss, so tests can compare the answers
// of the tail with those of the files.
var tailIndexOff atomic.Bool

// The tail index starts with room for tailIndexMin batches and doubles, up
// to tailIndexMax, while readers ask for batches it has already dropped: a
// busy partition (hundreds of small batches between two fetches of a
// consumer) gets a longer tail, an idle one costs under a kilobyte.
const (
	tailIndexMin = 32
	tailIndexMax = 1024
)

// tailEntry is one batch of the tail: its offsets and where it starts.
type tailEntry struct {
	base, last, pos int64
}

// tailIndex is an exact, in-memory index of the last batches appended to
// the active segment. Consumers and followers that keep up read from the
// tail, and a fetch that found nothing waits and reads from where the last
// one stopped: with the tail in memory, finding where a read starts and
// where it must stop (the high watermark, the byte budget) costs no system
// call, where the sparse .index (one entry per index.interval.bytes) leaves
// a scan of batch headers with one pread each.
//
// The appender records a batch before it publishes the segment's new size,
// so a reader trusts only entries below the size it loaded. Truncation
// drops the entries it cuts off before new batches take their place.
type tailIndex struct {
	mu   sync.RWMutex
	ents []tailEntry // ring, allocated on the first append
	head int         // index of the oldest entry
	n    int
	// short: a reader asked for a batch the full ring had dropped; the
	// next add doubles the ring.
	short atomic.Bool
}

// add records a batch appended at pos (appender only).
func (t *tailIndex) add(base, last, pos int64) {
	t.mu.Lock()
	switch {
	case t.ents == nil:
		t.ents = make([]tailEntry, tailIndexMin)
	case t.n == len(t.ents) && len(t.ents) < tailIndexMax && t.short.Swap(false):
		grown := make([]tailEntry, 2*len(t.ents))
		for i := range t.n {
			grown[i] = t.at(i)
		}
		t.ents, t.head = grown, 0
	}
	i := (t.head + t.n) % len(t.ents)
	t.ents[i] = tailEntry{base, last, pos}
	if t.n < len(t.ents) {
		t.n++
	} else {
		t.head = (t.head + 1) % len(t.ents)
	}
	t.mu.Unlock()
}

// truncate forgets the batches at or after pos.
func (t *tailIndex) truncate(pos int64) {
	t.mu.Lock()
	for t.n > 0 && t.at(t.n-1).pos >= pos {
		t.n--
	}
	t.mu.Unlock()
}

// reset forgets everything and releases the ring (the segment is sealed).
func (t *tailIndex) reset() {
	t.mu.Lock()
	t.ents, t.head, t.n = nil, 0, 0
	t.mu.Unlock()
}

func (t *tailIndex) at(i int) tailEntry { return t.ents[(t.head+i)%len(t.ents)] }

// tailSpan is what a read needs of the batches from its start: the first
// batch and the boundary where the read must stop.
type tailSpan struct {
	pos       int64 // where the batch holding the target starts
	firstBase int64 // that batch's base offset
	firstLast int64 // and last offset
	firstSize int64
	stop      int64 // the read's end boundary
	nextBase  int64 // base offset of the batch at stop; -1 when stop is the end
}

// span locates target and the read's end boundary as segment.boundary
// does (the largest batch boundary at or below limit before any batch
// reaching maxOffset), for a segment published up to end. ok is false
// when the target is not in the tail (older, or not yet published).
func (t *tailIndex) span(target, end, maxOffset int64, budget func(firstSize int64) int64) (sp tailSpan, ok bool) {
	if tailIndexOff.Load() {
		return sp, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	// Entries at or past end are not published yet.
	n := t.n
	for n > 0 && t.at(n-1).pos >= end {
		n--
	}
	if n == 0 || t.at(n-1).last < target {
		return sp, false
	}
	if target < t.at(0).base {
		if t.n == len(t.ents) {
			t.short.Store(true)
		}
		return sp, false
	}
	// The first entry whose last offset reaches target.
	lo, hi := 0, n-1
	for lo < hi {
		mid := (lo + hi) / 2
		if t.at(mid).last >= target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if t.at(lo).last < target {
		return sp, false
	}
	endOf := func(i int) int64 {
		if i+1 < n {
			return t.at(i + 1).pos
		}
		return end
	}
	e := t.at(lo)
	sp = tailSpan{pos: e.pos, firstBase: e.base, firstLast: e.last, firstSize: endOf(lo) - e.pos}
	limit := min(e.pos+budget(sp.firstSize), end)
	sp.stop, sp.nextBase = e.pos, e.base
	for i := lo; i < n; i++ {
		b := t.at(i)
		if b.last >= maxOffset || endOf(i) > limit {
			break
		}
		sp.stop, sp.nextBase = endOf(i), -1
		if i+1 < n {
			sp.nextBase = t.at(i + 1).base
		}
	}
	return sp, true
}

// position locates offset in the tail: the start of the batch holding it.
func (t *tailIndex) position(offset, end int64) (int64, bool) {
	sp, ok := t.span(offset, end, offset, func(int64) int64 { return 0 })
	return sp.pos, ok
}
