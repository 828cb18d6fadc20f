package tui

import "time"

// maxWarnings bounds the warnings log; the oldest go first.
const maxWarnings = 200

// warning is one line of the warnings pane: a snapshot's warning, seen
// from first to last (count times), or an event (a broker becoming
// unreachable, an action failing) seen once.
type warning struct {
	first, last time.Time
	count       int
	text        string
	// active is true while the latest snapshot still reports it, or, for
	// an event, until the next snapshot.
	active bool
}

// warnLog keeps recent warnings with their times, newest last.
type warnLog struct{ items []warning }

// observe records one snapshot's warnings: one seen before is updated, a
// new one appended, and those missing from it are no longer active.
func (w *warnLog) observe(at time.Time, texts []string) {
	now := map[string]bool{}
	for _, t := range texts {
		now[t] = true
	}
	seen := map[string]bool{}
	for i := range w.items {
		it := &w.items[i]
		switch {
		case now[it.text] && !seen[it.text] && it.active:
			it.last, it.count = at, it.count+1
			seen[it.text] = true
		default:
			it.active = false
		}
	}
	for _, t := range texts {
		if !seen[t] {
			w.add(at, t)
			seen[t] = true
		}
	}
}

// add records an event; the same event again at once (a refresh failing
// every second) is one line, seen from first to last.
func (w *warnLog) add(at time.Time, text string) {
	if n := len(w.items); n > 0 && w.items[n-1].text == text && w.items[n-1].active {
		it := &w.items[n-1]
		it.last, it.count = at, it.count+1
		return
	}
	w.items = append(w.items, warning{first: at, last: at, count: 1, text: text, active: true})
	if len(w.items) > maxWarnings {
		w.items = append(w.items[:0], w.items[len(w.items)-maxWarnings:]...)
	}
}

// activeCount is how many warnings are current.
func (w *warnLog) activeCount() int {
	n := 0
	for _, it := range w.items {
		if it.active {
			n++
		}
	}
	return n
}
