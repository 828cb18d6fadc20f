package admin

import (
	"sync"
	"time"
)

// window keeps samples of cumulative figures taken at scrapes, so a rate
// or ratio can be computed over the last span (Kafka's windowed rates)
// whoever scrapes and however often: every scraper shares the samples.
type window struct {
	span time.Duration

	mu      sync.Mutex
	samples []sample // oldest first
}

type sample struct {
	at time.Time
	v  map[string]float64
}

func newWindow(span time.Duration) *window { return &window{span: span} }

// add records cur at now and returns the sample to measure from: the
// newest one at least span old, else the oldest there is. Samples older
// than that one are dropped; samples closer than a second apart are not
// kept (the base is still chosen among the kept ones).
func (w *window) add(now time.Time, cur map[string]float64) sample {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Drop samples made obsolete by a newer one that is already span old.
	for len(w.samples) > 1 && !w.samples[1].at.After(now.Add(-w.span)) {
		w.samples = w.samples[1:]
	}
	var base sample
	if len(w.samples) > 0 {
		base = w.samples[0]
	}
	if n := len(w.samples); n == 0 || now.Sub(w.samples[n-1].at) >= time.Second {
		w.samples = append(w.samples, sample{at: now, v: cur})
	}
	return base
}
