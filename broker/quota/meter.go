package quota

import (
	"math"
	"sync"
	"time"
)

// Meter is a Rate over samples with its own lock: Kafka's Rate metric on a
// Sensor. The replication Quota and the client quotas
// (broker/clientquota) measure with it. Values may be negative: a client
// quota takes back a fetch it did not send (Kafka's unrecordQuotaSensor),
// which lowers the sum of the sample holding it.
type Meter struct {
	now  func() time.Time
	mu   sync.Mutex
	rate *rate
}

// NewMeter builds a meter of samples windows of window each; a zero or
// negative shape takes Kafka's default of 11 samples of 1 s, and a nil
// clock is time.Now.
func NewMeter(samples int, window time.Duration, clock func() time.Time) *Meter {
	if samples <= 0 {
		samples = 11
	}
	if window <= 0 {
		window = time.Second
	}
	if clock == nil {
		clock = time.Now
	}
	return &Meter{now: clock, rate: newRate(samples, window)}
}

// Record adds v now.
func (m *Meter) Record(v float64) {
	now := m.now().UnixMilli()
	m.mu.Lock()
	m.rate.record(v, now)
	m.mu.Unlock()
}

// RecordAndMeasure adds v and measures at the same instant, as Kafka's
// Sensor.record does before checking a quota: it returns the rate (units
// per second) including v, and the time the rate was taken over (Kafka's
// Rate.windowSize), which the throttle time is computed from.
func (m *Meter) RecordAndMeasure(v float64) (perSecond float64, window time.Duration) {
	now := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rate.record(v, now)
	perSecond = m.rate.measure(now)
	return perSecond, time.Duration(m.rate.elapsed(now)) * time.Millisecond
}

// Rate is the measured rate in units per second.
func (m *Meter) Rate() float64 {
	now := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rate.measure(now)
}

// Average is the mean of the values recorded in the retained samples,
// Kafka's Avg stat (a throttle-time sensor); 0 when none are retained,
// where Kafka reports NaN.
func (m *Meter) Average() float64 {
	now := m.now().UnixMilli()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rate.average(now)
}

// ThrottleTime is how long a client measured at rate over window must stay
// silent for its rate to come back to limit: Kafka's
// ClientQuotaManager.throttleTime. With O the observed rate and T the
// limit over a window W, waiting X gives O*W/(W+X) = T, so
// X = (O-T)/T * W, rounded to the millisecond as Java's Math.round does.
// A rate at or under the limit needs no wait. A limit of zero or less
// (Kafka accepts any number) makes every recorded unit a violation that no
// wait can repair: the caller's bound applies, so it is returned as
// math.MaxInt64.
func ThrottleTime(rate, limit float64, window time.Duration) time.Duration {
	if rate <= limit {
		return 0
	}
	if limit <= 0 {
		return math.MaxInt64
	}
	ms := math.Floor((rate-limit)/limit*float64(window.Milliseconds()) + 0.5)
	if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}
