package clientquota

import (
	"cmp"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"kafgo/broker/quota"
)

// Config shapes a Manager.
type Config struct {
	Samples int           // quota.window.num (Kafka: 11)
	Window  time.Duration // quota.window.size.seconds (Kafka: 1 s)
	// ProducerDefault and ConsumerDefault are the legacy static client-id
	// quotas quota.producer.default and quota.consumer.default in bytes/s;
	// math.MaxInt64 (Kafka's default) or 0 means none.
	ProducerDefault, ConsumerDefault int64
	// MetricSamples and MetricWindow shape the throttle-time averages
	// (metrics.num.samples 2, metrics.sample.window.ms 30 s).
	MetricSamples int
	MetricWindow  time.Duration
	Clock         func() time.Time
	Logger        *slog.Logger
}

// SensorExpiry is how long an idle client's sensors live (Kafka's
// InactiveSensorExpirationTimeSeconds).
const SensorExpiry = time.Hour

// Manager enforces client quotas on one broker: Kafka's three
// ClientQuotaManagers (produce, fetch, request). It is fed quota configs
// with Update and measures each client's use with RecordAndThrottle. Safe
// for concurrent use.
type Manager struct {
	cfg   Config
	log   *slog.Logger
	types [numTypes]*typeManager
}

// typeManager is one ClientQuotaManager.
type typeManager struct {
	typ Type
	m   *Manager
	// maxThrottle bounds one throttle: the whole quota window for byte
	// rates, one window for the request quota (Kafka's
	// ClientRequestQuotaManager.maxThrottleTimeMs).
	maxThrottle time.Duration

	mu        sync.RWMutex
	limits    *limits
	sensors   map[tags]*sensor
	lastSweep int64 // unix ms
}

// sensor is one tag set's rate and throttle time (Kafka's quota sensor and
// throttle-time sensor).
type sensor struct {
	tags     tags
	rate     *quota.Meter
	throttle *quota.Meter // average throttle time in ms
	limit    atomic.Uint64
	lastUsed atomic.Int64 // unix ms
	until    atomic.Int64 // unix ms the last throttle ends
}

func (s *sensor) getLimit() float64  { return math.Float64frombits(s.limit.Load()) }
func (s *sensor) setLimit(v float64) { s.limit.Store(math.Float64bits(v)) }

// NewManager builds a manager with no dynamic quotas yet.
func NewManager(cfg Config) *Manager {
	if cfg.Samples <= 0 {
		cfg.Samples = 11
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Second
	}
	if cfg.MetricSamples <= 0 {
		cfg.MetricSamples = 2
	}
	if cfg.MetricWindow <= 0 {
		cfg.MetricWindow = 30 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := &Manager{cfg: cfg, log: cfg.Logger}
	static := func(v int64) float64 {
		if v <= 0 || v == math.MaxInt64 {
			return Unlimited
		}
		return float64(v)
	}
	statics := [numTypes]float64{static(cfg.ProducerDefault), static(cfg.ConsumerDefault), Unlimited}
	for _, t := range Types {
		max := time.Duration(cfg.Samples) * cfg.Window
		if t == Request {
			max = cfg.Window
		}
		m.types[t] = &typeManager{typ: t, m: m, maxThrottle: max, limits: newLimits(statics[t]), sensors: map[tags]*sensor{}}
	}
	return m
}

// Update applies an entity's configs as its znode holds them now (nil or
// empty when it was removed): each quota key sets or clears that type's
// quota, as Kafka's QuotaConfigHandler does. Keys that are not quotas
// (SCRAM credentials) are ignored; a value that is not a number clears
// the quota and is logged.
func (m *Manager) Update(e Entity, configs map[string]string) {
	for _, t := range Types {
		raw, ok := configs[t.Key()]
		var v float64
		if ok {
			var err error
			if v, err = strconv.ParseFloat(raw, 64); err != nil {
				m.log.Warn("ignoring invalid quota config", "entity", e.String(), "key", t.Key(), "value", raw)
				ok = false
			}
		}
		m.types[t].update(e, v, ok)
	}
}

func (tm *typeManager) update(e Entity, v float64, ok bool) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if prev, had := tm.limits.get(e.User, e.Client); had != ok || prev != v {
		if ok {
			tm.m.log.Info("quota changed", "type", tm.typ.String(), "entity", e.String(), "quota", v)
		} else if had {
			tm.m.log.Info("quota removed", "type", tm.typ.String(), "entity", e.String())
		}
	}
	tm.limits.set(e, v, ok)
	// A default, or a quota at a new level, can change the limit of any
	// sensor; going through them all is what Kafka does in that case too.
	for _, s := range tm.sensors {
		s.setLimit(tm.limits.limit(s.tags))
	}
}

// Enabled reports whether quotas of type t may apply to anyone: until some
// quota of the type was configured, nothing is measured (Kafka's
// quotasEnabled).
func (m *Manager) Enabled(t Type) bool {
	tm := m.types[t]
	tm.mu.RLock()
	defer tm.mu.RUnlock()
	return tm.limits.on()
}

// Limit is the quota of type t that applies to user with client id now.
func (m *Manager) Limit(t Type, user, clientID string) float64 {
	tm := m.types[t]
	tm.mu.RLock()
	defer tm.mu.RUnlock()
	return tm.limits.limit(tm.limits.tagsFor(user, clientID))
}

// sensor finds or creates the sensor a request from user with client id
// counts on, or nil when no quota of the type is enabled.
func (tm *typeManager) sensor(user, clientID string) *sensor {
	now := tm.m.cfg.Clock().UnixMilli()
	tm.mu.RLock()
	on := tm.limits.on()
	t := tm.limits.tagsFor(user, clientID)
	s := tm.sensors[t]
	tm.mu.RUnlock()
	if !on {
		return nil
	}
	if s == nil {
		tm.mu.Lock()
		// The tags may have changed with a quota update meanwhile.
		t = tm.limits.tagsFor(user, clientID)
		if s = tm.sensors[t]; s == nil {
			s = &sensor{
				tags:     t,
				rate:     quota.NewMeter(tm.m.cfg.Samples, tm.m.cfg.Window, tm.m.cfg.Clock),
				throttle: quota.NewMeter(tm.m.cfg.MetricSamples, tm.m.cfg.MetricWindow, tm.m.cfg.Clock),
			}
			s.setLimit(tm.limits.limit(t))
			s.lastUsed.Store(now)
			tm.sweepLocked(now)
			tm.sensors[t] = s
		}
		tm.mu.Unlock()
	}
	s.lastUsed.Store(now)
	return s
}

// sweepLocked drops sensors idle for SensorExpiry, at most once a minute.
func (tm *typeManager) sweepLocked(now int64) {
	if now-tm.lastSweep < time.Minute.Milliseconds() {
		return
	}
	tm.lastSweep = now
	for t, s := range tm.sensors {
		if now-s.lastUsed.Load() >= SensorExpiry.Milliseconds() {
			delete(tm.sensors, t)
		}
	}
}

// RecordAndThrottle counts value (bytes, or for Request a percentage of
// one thread's second, see Percentage) against the quota of user with
// client id and returns how long the client must be throttled: 0 within
// the quota, else Kafka's throttle time, bounded by maxThrottle. As in
// Kafka the value is recorded either way.
func (m *Manager) RecordAndThrottle(t Type, user, clientID string, value float64) time.Duration {
	tm := m.types[t]
	s := tm.sensor(user, clientID)
	if s == nil {
		return 0
	}
	rate, window := s.rate.RecordAndMeasure(value)
	return min(quota.ThrottleTime(rate, s.getLimit(), window), tm.maxThrottle)
}

// Unrecord takes back a value recorded for a response that was not sent
// (a throttled fetch answers empty), as Kafka's unrecordQuotaSensor.
func (m *Manager) Unrecord(t Type, user, clientID string, value float64) {
	if s := m.types[t].sensor(user, clientID); s != nil {
		s.rate.Record(-value)
	}
}

// Throttled records that a client of the sensor was throttled for d: the
// throttle-time metric and the throttled-until mark the admin endpoint
// shows.
func (m *Manager) Throttled(t Type, user, clientID string, d time.Duration) {
	if d <= 0 {
		return
	}
	s := m.types[t].sensor(user, clientID)
	if s == nil {
		return
	}
	s.throttle.Record(float64(d.Milliseconds()))
	end := m.cfg.Clock().Add(d).UnixMilli()
	for {
		cur := s.until.Load()
		if cur >= end || s.until.CompareAndSwap(cur, end) {
			return
		}
	}
}

// MaxValueInWindow is the most a single request may record without being
// throttled for certain: the limit times the (samples-1) windows a fresh
// rate is measured over. A fetch asks for no more than this, so a low
// quota still lets a consumer through (Kafka's getMaxValueInQuotaWindow).
// +Inf when no quota of the type is enabled.
func (m *Manager) MaxValueInWindow(t Type, user, clientID string) float64 {
	tm := m.types[t]
	tm.mu.RLock()
	defer tm.mu.RUnlock()
	if !tm.limits.on() {
		return math.Inf(1)
	}
	l := tm.limits.limit(tm.limits.tagsFor(user, clientID))
	return l * float64(m.cfg.Samples-1) * m.cfg.Window.Seconds()
}

// Percentage converts request handler time into the request quota's
// unit: percent of one thread's second (Kafka's nanosToPercentage), so a
// rate of 100 is one thread busy all the time.
func Percentage(d time.Duration) float64 { return float64(d.Nanoseconds()) * 100 / 1e9 }

// SensorStats is one sensor as metrics show it.
type SensorStats struct {
	Type Type
	// User and ClientID are the sensor's tags: empty when the quota that
	// applies covers every value of that part.
	User, ClientID string
	Rate           float64 // bytes/s, or percent of a thread for Request
	Limit          float64 // Unlimited when none applies
	ThrottleTimeMs float64 // average throttle time over the metric window
	ThrottledUntil time.Time
}

// Stats lists every live sensor, sorted by type, user and client id.
func (m *Manager) Stats() []SensorStats {
	var out []SensorStats
	now := m.cfg.Clock().UnixMilli()
	for _, tm := range m.types {
		tm.mu.Lock()
		tm.sweepLocked(now)
		ss := make([]*sensor, 0, len(tm.sensors))
		for _, s := range tm.sensors {
			ss = append(ss, s)
		}
		tm.mu.Unlock()
		for _, s := range ss {
			out = append(out, SensorStats{
				Type: tm.typ, User: s.tags.user, ClientID: s.tags.client,
				Rate: s.rate.Rate(), Limit: s.getLimit(), ThrottleTimeMs: s.throttle.Average(),
				ThrottledUntil: time.UnixMilli(s.until.Load()),
			})
		}
	}
	slices.SortFunc(out, func(a, b SensorStats) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.User, b.User), cmp.Compare(a.ClientID, b.ClientID))
	})
	return out
}
