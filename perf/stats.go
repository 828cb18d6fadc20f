package perf

import (
	"fmt"
	"io"
	"slices"
	"time"

	"kafgo/internal/javanum"
)

// maxSamples bounds the latency samples kept, as in Kafka.
const maxSamples = 500000

// producerStats accumulates acknowledged records. Its methods are called
// from kgo's promise goroutine and, at the end, from the sending goroutine
// after every promise has run, so it needs no lock of its own.
type producerStats struct {
	start       time.Time // first send
	last        time.Time // last acknowledgement
	count       int64
	bytes       int64
	totalLat    int64
	maxLat      int64
	sampling    int64
	latencies   []int32
	iteration   int64
	windowStart time.Time
	wCount      int64
	wBytes      int64
	wTotalLat   int64
	wMaxLat     int64
	interval    time.Duration
	out         io.Writer // nil: no window lines
}

func newProducerStats(numRecords int64, interval time.Duration, out io.Writer) *producerStats {
	sampling := numRecords / min(numRecords, maxSamples)
	return &producerStats{
		sampling:  sampling,
		latencies: make([]int32, 0, numRecords/sampling+1),
		interval:  interval,
		out:       out,
	}
}

// begin marks the first send.
func (s *producerStats) begin(t time.Time) {
	s.start, s.windowStart = t, t
}

func (s *producerStats) record(latMs int64, bytes int, now time.Time) {
	s.count++
	s.bytes += int64(bytes)
	s.totalLat += latMs
	s.maxLat = max(s.maxLat, latMs)
	s.wCount++
	s.wBytes += int64(bytes)
	s.wTotalLat += latMs
	s.wMaxLat = max(s.wMaxLat, latMs)
	if s.iteration%s.sampling == 0 && len(s.latencies) < cap(s.latencies) {
		s.latencies = append(s.latencies, int32(min(latMs, 1<<31-1)))
	}
	s.iteration++
	s.last = now
	if s.out != nil && now.Sub(s.windowStart) >= s.interval {
		s.printWindow(now)
		s.windowStart = now
		s.wCount, s.wBytes, s.wTotalLat, s.wMaxLat = 0, 0, 0, 0
	}
}

func (s *producerStats) printWindow(now time.Time) {
	elapsed := float64(now.Sub(s.windowStart).Milliseconds())
	recsPerSec := 1000.0 * float64(s.wCount) / elapsed
	mbPerSec := 1000.0 * float64(s.wBytes) / elapsed / (1024.0 * 1024.0)
	fmt.Fprintf(s.out, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency.\n",
		s.wCount, javanum.FormatFixed(recsPerSec, 1), javanum.FormatFixed(mbPerSec, 2),
		javanum.FormatFixed(float64(s.wTotalLat)/float64(s.wCount), 1), javanum.FormatFixed(float64(s.wMaxLat), 1))
}

// ProducerSummary is the final figures of a run (or of its steady state).
type ProducerSummary struct {
	Records       int64   `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	AvgMs         float64 `json:"avg_ms"`
	MaxMs         float64 `json:"max_ms"`
	P50           int64   `json:"p50"`
	P95           int64   `json:"p95"`
	P99           int64   `json:"p99"`
	P999          int64   `json:"p999"`
	// ElapsedMs runs from the first send to the last acknowledgement.
	ElapsedMs int64 `json:"elapsed_ms"`
}

func (s *producerStats) summary() ProducerSummary {
	sum := ProducerSummary{Records: s.count, MaxMs: float64(s.maxLat)}
	if s.count == 0 {
		return sum
	}
	elapsed := s.last.Sub(s.start)
	sum.ElapsedMs = elapsed.Milliseconds()
	// Sub-millisecond runs still get a rate: use the exact duration rather
	// than dividing by a zero millisecond count.
	secs := max(elapsed.Seconds(), 1e-9)
	sum.RecordsPerSec = float64(s.count) / secs
	sum.MBPerSec = float64(s.bytes) / secs / (1024.0 * 1024.0)
	sum.AvgMs = float64(s.totalLat) / float64(s.count)
	p := percentiles(s.latencies, 0.5, 0.95, 0.99, 0.999)
	sum.P50, sum.P95, sum.P99, sum.P999 = p[0], p[1], p[2], p[3]
	return sum
}

// percentiles sorts samples in place and picks index (int)(p*len) for each
// p, as Kafka does.
func percentiles(samples []int32, ps ...float64) []int64 {
	slices.Sort(samples)
	out := make([]int64, len(ps))
	if len(samples) == 0 {
		return out
	}
	for i, p := range ps {
		idx := min(int(p*float64(len(samples))), len(samples)-1)
		out[i] = int64(samples[idx])
	}
	return out
}

// writeSummary prints the final line.
func writeSummary(w io.Writer, s ProducerSummary, suffix string) {
	fmt.Fprintf(w, "%d%s records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		s.Records, suffix, javanum.FormatFixed(s.RecordsPerSec, 6), javanum.FormatFixed(s.MBPerSec, 2), javanum.FormatFixed(s.AvgMs, 2), javanum.FormatFixed(s.MaxMs, 2),
		s.P50, s.P95, s.P99, s.P999)
}
