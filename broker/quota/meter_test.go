package quota

import (
	"math"
	"testing"
	"time"
)

// TestThrottleTime pins Kafka's throttle arithmetic: X = (O-T)/T * W,
// rounded half up to the millisecond, nothing at or under the limit, and
// an unrepairable violation (a limit of zero or less) reported as the
// largest duration for the caller to bound.
func TestThrottleTime(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rate, limit float64
		window      time.Duration
		want        time.Duration
	}{
		{"under", 900, 1000, 10 * time.Second, 0},
		{"at the limit", 1000, 1000, 10 * time.Second, 0},
		{"10% over ten windows", 1100, 1000, 10 * time.Second, time.Second},
		{"double over 10.5 s", 2000, 1000, 10500 * time.Millisecond, 10500 * time.Millisecond},
		{"rounds half up", 1024.5, 1024, 1024 * time.Millisecond, time.Millisecond}, // 0.5 ms
		{"rounds down below half", 1024.25, 1024, 1024 * time.Millisecond, 0},       // 0.25 ms
		{"fractional limit", 150, 100, time.Second, 500 * time.Millisecond},         // request_percentage
		{"zero limit", 1, 0, time.Second, math.MaxInt64},
		{"negative limit", 1, -5, time.Second, math.MaxInt64},
		{"huge ratio saturates", 1e300, 1, time.Second, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ThrottleTime(tc.rate, tc.limit, tc.window); got != tc.want {
				t.Fatalf("ThrottleTime(%v, %v, %v) = %v, want %v", tc.rate, tc.limit, tc.window, got, tc.want)
			}
		})
	}
}

// TestMeterRecordAndMeasure: the rate returned includes the value just
// recorded, the window is Kafka's windowSize (at least num-1 windows), and
// a negative record takes a value back out of its sample.
func TestMeterRecordAndMeasure(t *testing.T) {
	clk := &fakeClock{}
	m := NewMeter(11, time.Second, clk.now)
	r, w := m.RecordAndMeasure(5000)
	if w != 10*time.Second || !near(r, 500) {
		t.Fatalf("first record: rate %v over %v, want 500 over 10s", r, w)
	}
	clk.set(2500)
	r, w = m.RecordAndMeasure(5000)
	if w != 10500*time.Millisecond || !near(r, 10000/10.5) {
		t.Fatalf("second record: rate %v over %v, want %v over 10.5s", r, w, 10000/10.5)
	}
	m.Record(-5000) // unrecord the second value
	if got := m.Rate(); !near(got, 5000/10.5) {
		t.Fatalf("after unrecord: rate %v, want %v", got, 5000/10.5)
	}
	clk.set(13000) // the first sample is 11 windows old
	if got := m.Rate(); !near(got, 0) {
		t.Fatalf("after the window passed: rate %v, want 0 (the second sample nets to zero)", got)
	}
}

// TestMeterAverage: Kafka's Avg over the retained samples, 0 when none.
func TestMeterAverage(t *testing.T) {
	clk := &fakeClock{}
	m := NewMeter(2, 30*time.Second, clk.now)
	if got := m.Average(); got != 0 {
		t.Fatalf("empty average %v", got)
	}
	m.Record(100)
	m.Record(300)
	clk.set(31_000)
	m.Record(200)
	if got := m.Average(); !near(got, 200) {
		t.Fatalf("average %v, want 200", got)
	}
	clk.set(61_000) // the first sample (started at 0) is two windows old
	if got := m.Average(); !near(got, 200) {
		t.Fatalf("average after the first sample expired %v, want 200", got)
	}
	clk.set(91_000)
	if got := m.Average(); got != 0 {
		t.Fatalf("average after every sample expired %v, want 0", got)
	}
}
