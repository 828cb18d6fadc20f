package quota

import "time"

// rate is a byte rate over a ring of samples (Kafka's Rate with a
// WindowedSum stat). Times are milliseconds, as Kafka keeps them, so the
// arithmetic matches Kafka's to the millisecond. Not safe for concurrent
// use; Quota serialises it.
type rate struct {
	num     int   // samples kept
	window  int64 // ms per sample
	samples []sample
	current int
}

// sample is one window: when it started (Kafka's lastWindowMs) and what was
// recorded in it.
type sample struct {
	start int64
	value float64
	count int64 // values recorded (Kafka's eventCount), for average
}

func newRate(num int, window time.Duration) *rate {
	if num < 1 {
		num = 1
	}
	w := window.Milliseconds()
	if w < 1 {
		w = 1
	}
	return &rate{num: num, window: w, samples: make([]sample, 0, num)}
}

// cur is the current sample, the first one created on first use.
func (r *rate) cur(now int64) *sample {
	if len(r.samples) == 0 {
		r.samples = append(r.samples, sample{start: now})
		r.current = 0
	}
	return &r.samples[r.current]
}

// record adds v at now, moving to the next sample when the current one
// covers a whole window.
func (r *rate) record(v float64, now int64) {
	s := r.cur(now)
	if now-s.start >= r.window {
		r.current = (r.current + 1) % r.num
		if r.current >= len(r.samples) {
			r.samples = append(r.samples, sample{start: now})
		} else {
			r.samples[r.current] = sample{start: now}
		}
		s = &r.samples[r.current]
	}
	s.value += v
	s.count++
}

// purge resets samples too old to count: started num windows or more ago.
func (r *rate) purge(now int64) {
	expire := int64(r.num) * r.window
	for i := range r.samples {
		if now-r.samples[i].start >= expire {
			r.samples[i] = sample{start: now}
		}
	}
}

// oldest is the sample that started first (created at now if none).
func (r *rate) oldest(now int64) sample {
	r.cur(now)
	o := r.samples[0]
	for _, s := range r.samples[1:] {
		if s.start < o.start {
			o = s
		}
	}
	return o
}

// elapsed is the time the retained samples stand for, in ms.
func (r *rate) elapsed(now int64) int64 {
	total := now - r.oldest(now).start
	full := total / r.window
	if floor := int64(r.num - 1); full < floor {
		// Too little history: assume the missing full windows were empty,
		// so the first bytes of a fresh meter do not read as a huge rate.
		total += (floor - full) * r.window
	}
	return max(total, 1)
}

// measure is the rate in units per second at now.
func (r *rate) measure(now int64) float64 {
	r.purge(now)
	sum := 0.0
	for _, s := range r.samples {
		sum += s.value
	}
	return sum / (float64(r.elapsed(now)) / 1000)
}

// average is the mean of the values in the retained samples at now
// (Kafka's Avg over a SampledStat), 0 when there are none.
func (r *rate) average(now int64) float64 {
	r.purge(now)
	sum, n := 0.0, int64(0)
	for _, s := range r.samples {
		sum += s.value
		n += s.count
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
