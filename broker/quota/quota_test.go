package quota

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock, in milliseconds from an arbitrary epoch.
type fakeClock struct {
	mu sync.Mutex
	ms int64
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.UnixMilli(1_700_000_000_000 + c.ms)
}

func (c *fakeClock) set(ms int64) {
	c.mu.Lock()
	c.ms = ms
	c.mu.Unlock()
}

func newTestQuota(samples int, window time.Duration, limit int64) (*Quota, *fakeClock) {
	clk := &fakeClock{}
	return New(Config{Samples: samples, Window: window, Limit: limit, Clock: clk.now}), clk
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestRateWindowArithmetic pins Kafka's Rate semantics: the sum of the
// retained samples over the time since the oldest one started, that time
// raised to num-1 whole windows while there is less history, samples a
// window long, and samples num windows old dropped.
func TestRateWindowArithmetic(t *testing.T) {
	type step struct {
		at     int64 // ms
		record int64 // bytes to record at `at`, or 0 to measure
		want   float64
	}
	for _, tc := range []struct {
		name    string
		samples int
		steps   []step
	}{
		{"nothing recorded", 11, []step{{at: 0, want: 0}, {at: 5000, want: 0}}},
		{"fresh meter assumes ten empty windows", 11, []step{
			{at: 0, record: 1000},
			{at: 0, want: 1000.0 / 10},
			{at: 500, want: 1000.0 / 10.5},
		}},
		{"a second window starts after one window", 11, []step{
			{at: 0, record: 1000},
			{at: 999, record: 1000}, // still the first sample
			{at: 1000, record: 2000},
			{at: 1500, want: 4000.0 / 10.5}, // 1.5 s elapsed, one full window: +9 windows
		}},
		{"full history needs no padding", 11, []step{
			{at: 0, record: 100}, {at: 1000, record: 100}, {at: 2000, record: 100}, {at: 3000, record: 100},
			{at: 4000, record: 100}, {at: 5000, record: 100}, {at: 6000, record: 100}, {at: 7000, record: 100},
			{at: 8000, record: 100}, {at: 9000, record: 100}, {at: 10000, record: 100},
			{at: 10999, want: 1100.0 / 10.999},
			// At 11 s the sample started at 0 is 11 windows old: dropped.
			{at: 11000, want: 1000.0 / 10},
			{at: 11000, record: 100}, // reuses the dropped slot
			{at: 11500, want: 1100.0 / 10.5},
		}},
		{"ring of two reuses the oldest slot", 2, []step{
			{at: 0, record: 10},
			{at: 1000, record: 20},
			{at: 2000, record: 30}, // replaces the sample started at 0
			{at: 2500, want: 50.0 / 1.5},
			{at: 3000, want: 30.0 / 1}, // the sample started at 1000 expired
		}},
		{"everything expires after a long idle", 11, []step{
			{at: 0, record: 1 << 20},
			{at: 60000, want: 0},
		}},
		{"elapsed is at least 1 ms", 1, []step{
			{at: 0, record: 5},
			{at: 0, want: 5.0 / 0.001},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, clk := newTestQuota(tc.samples, time.Second, Unlimited)
			for i, s := range tc.steps {
				clk.set(s.at)
				if s.record > 0 {
					q.Record(s.record)
					continue
				}
				if got := q.Rate(); !near(got, s.want) {
					t.Fatalf("step %d at %d ms: rate %v, want %v", i, s.at, got, s.want)
				}
			}
		})
	}
}

// TestQuotaExceeded: strictly above the limit is exceeded, the limit can
// change at run time, Unlimited never trips, and the counters add up.
func TestQuotaExceeded(t *testing.T) {
	q, clk := newTestQuota(11, time.Second, 100)
	if q.IsExceeded() {
		t.Fatal("exceeded with nothing recorded")
	}
	q.Record(1000) // 1000 B over 10 s: exactly 100 B/s
	if q.IsExceeded() {
		t.Fatalf("exceeded at exactly the limit (rate %v)", q.Rate())
	}
	q.Record(1)
	if !q.IsExceeded() {
		t.Fatalf("not exceeded above the limit (rate %v)", q.Rate())
	}
	q.SetLimit(200)
	if q.IsExceeded() {
		t.Fatal("raising the limit did not lift the throttle")
	}
	q.SetLimit(0)
	if !q.IsExceeded() {
		t.Fatal("a limit of 0 with bytes recorded is not exceeded")
	}
	q.SetLimit(-1)
	if q.Limit() != Unlimited || q.IsExceeded() {
		t.Fatalf("negative limit: limit %d exceeded %v, want unlimited", q.Limit(), q.IsExceeded())
	}
	q.Record(math.MaxInt32)
	if q.IsExceeded() {
		t.Fatal("an unlimited quota was exceeded")
	}
	q.SetLimit(100)
	clk.set(11000) // every sample expired
	if q.IsExceeded() {
		t.Fatalf("exceeded after the window passed (rate %v)", q.Rate())
	}
	q.HeldBack()
	st := q.Stats()
	if st.RecordedBytes != 1001+math.MaxInt32 || st.HeldBack != 1 || st.Limit != 100 || st.Exceeded || st.Rate != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQuotaInitialAllowance documents what Kafka's arithmetic means for a
// replica fetching 1 MiB at a time under a 200 kB/s throttle, checking every
// 100 ms: a fresh meter counts at least 10 s of history, and the padding
// counts whole windows only, so the measured rate decays within the first
// second: two fetches pass at once, a third at 500 ms (3 MiB / 10.5 s is
// just under the limit), then nothing until the sample holding them expires
// at 11 s, and the cycle repeats. That is 3 MiB per 11 s, 286 kB/s: with
// fetches this large against this low a limit the quota is coarse, which is
// why Kafka advises limits above 1 MB/s.
func TestQuotaInitialAllowance(t *testing.T) {
	const fetch, limit = 1 << 20, 200_000
	q, clk := newTestQuota(11, time.Second, limit)
	var passed []int64
	for ms := int64(0); ms <= 20_000; ms += 100 {
		clk.set(ms)
		if !q.IsExceeded() {
			q.Record(fetch)
			passed = append(passed, ms)
		}
	}
	want := []int64{0, 100, 500, 11_000, 11_100, 11_500}
	if !slices.Equal(passed, want) {
		t.Fatalf("fetches passed at %v ms, want %v", passed, want)
	}
}
