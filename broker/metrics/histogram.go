package metrics

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// bucketBounds are the histogram's inclusive upper bounds in nanoseconds:
// 1, 2, 5 x 10^k from 1 µs to 50 s. A value above the last lands in +Inf.
var bucketBounds = func() []int64 {
	var out []int64
	for decade := int64(time.Microsecond); decade <= 10*int64(time.Second); decade *= 10 {
		out = append(out, decade, 2*decade, 5*decade)
	}
	return out
}()

// NumBuckets is the number of finite buckets; a Histogram has one more,
// +Inf.
var NumBuckets = len(bucketBounds)

// firstBucket[k] is the first bucket whose bound can hold a value of
// bits.Len64(v) == k, i.e. v >= 2^(k-1): the search for v starts there and
// moves at most two steps, since consecutive bounds are at least 2x apart.
var firstBucket = func() [65]uint8 {
	var out [65]uint8
	for k := range out {
		low := int64(0)
		if k > 0 && k < 64 {
			low = int64(1) << (k - 1)
		} else if k >= 64 {
			low = 1 << 62
		}
		i := 0
		for i < len(bucketBounds) && bucketBounds[i] < low {
			i++
		}
		out[k] = uint8(i)
	}
	return out
}()

// BucketBounds returns the finite upper bounds, in the order of
// HistogramSnapshot.Buckets.
func BucketBounds() []time.Duration {
	out := make([]time.Duration, len(bucketBounds))
	for i, b := range bucketBounds {
		out[i] = time.Duration(b)
	}
	return out
}

// Histogram counts durations into fixed buckets. The zero value is ready;
// Observe is safe for concurrent use and never allocates.
type Histogram struct {
	counts [maxBuckets + 1]atomic.Uint64 // non-cumulative; the last is +Inf
	sum    atomic.Int64                  // nanoseconds
}

// maxBuckets bounds the array size; init checks bucketBounds fits.
const maxBuckets = 24

func init() {
	if len(bucketBounds) != maxBuckets {
		panic("metrics: bucket table and maxBuckets disagree")
	}
}

func bucketOf(ns int64) int {
	if ns <= 0 {
		return 0
	}
	i := int(firstBucket[bits.Len64(uint64(ns))])
	for i < len(bucketBounds) && ns > bucketBounds[i] {
		i++
	}
	return i
}

// Observe records one duration; negative durations count as zero.
func (h *Histogram) Observe(d time.Duration) {
	ns := int64(d)
	if ns < 0 {
		ns = 0
	}
	h.counts[bucketOf(ns)].Add(1)
	if ns != 0 {
		h.sum.Add(ns)
	}
}

// HistogramSnapshot is a histogram read at one moment (each figure
// atomically; a concurrent Observe may be in some and not others).
type HistogramSnapshot struct {
	// Buckets are cumulative counts per BucketBounds, Prometheus style.
	Buckets []uint64
	Count   uint64
	Sum     time.Duration
}

// add sums o into s: both use bucketBounds.
func (s *HistogramSnapshot) add(o HistogramSnapshot) {
	if s.Buckets == nil {
		s.Buckets = make([]uint64, len(o.Buckets))
	}
	for i := range o.Buckets {
		s.Buckets[i] += o.Buckets[i]
	}
	s.Count += o.Count
	s.Sum += o.Sum
}

// Snapshot reads the histogram.
func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{Buckets: make([]uint64, len(bucketBounds))}
	var cum uint64
	for i := range bucketBounds {
		cum += h.counts[i].Load()
		s.Buckets[i] = cum
	}
	s.Count = cum + h.counts[len(bucketBounds)].Load()
	s.Sum = time.Duration(h.sum.Load())
	return s
}

// Count is the number of observations.
func (h *Histogram) Count() uint64 {
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}

// Sum is the total of the observations.
func (h *Histogram) Sum() time.Duration { return time.Duration(h.sum.Load()) }

// Quantile estimates the q-quantile (0 < q <= 1) of the observations by
// linear interpolation within its bucket, as Prometheus's
// histogram_quantile does; 0 without observations.
func (s HistogramSnapshot) Quantile(q float64) time.Duration {
	if s.Count == 0 {
		return 0
	}
	rank := q * float64(s.Count)
	lower, prev := int64(0), uint64(0)
	for i, c := range s.Buckets {
		if float64(c) >= rank {
			inBucket := float64(c - prev)
			frac := 1.0
			if inBucket > 0 {
				frac = (rank - float64(prev)) / inBucket
			}
			return time.Duration(float64(lower) + frac*float64(bucketBounds[i]-lower))
		}
		lower, prev = bucketBounds[i], c
	}
	return time.Duration(bucketBounds[len(bucketBounds)-1])
}
