package clientquota

import (
	"math"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock, in milliseconds from an arbitrary epoch.
type fakeClock struct{ ms atomic.Int64 }

func (c *fakeClock) now() time.Time { return time.UnixMilli(1_700_000_000_000 + c.ms.Load()) }
func (c *fakeClock) set(ms int64)   { c.ms.Store(ms) }

func newTestManager(cfg Config) (*Manager, *fakeClock) {
	clk := &fakeClock{}
	cfg.Clock = clk.now
	return NewManager(cfg), clk
}

// TestThrottleArithmetic walks a producer over a 1000 B/s quota through
// Kafka's numbers: a fresh sensor measures over 10 windows, the throttle
// is (rate-limit)/limit x window, a request within the quota is free, and
// the bound is the whole quota window (11 s) for bytes and one window for
// the request quota.
func TestThrottleArithmetic(t *testing.T) {
	m, clk := newTestManager(Config{})
	m.Update(Entity{Client: NamedPart("p")}, map[string]string{ProducerByteRate: "1000", RequestPercentage: "50"})

	if d := m.RecordAndThrottle(Produce, "ANONYMOUS", "p", 10_000); d != 0 {
		t.Fatalf("10 kB over a fresh 10 s window is exactly the quota: throttled %v", d)
	}
	// 20 kB over 10 s = 2000 B/s: (2000-1000)/1000 x 10 s.
	if d := m.RecordAndThrottle(Produce, "ANONYMOUS", "p", 10_000); d != 10*time.Second {
		t.Fatalf("throttle %v, want 10s", d)
	}
	clk.set(5500) // 20.1 kB over 10.5 s (5 full windows + 5 padded): 1914.29 B/s
	want := time.Duration(math.Floor((20_100/10.5-1000)/1000*10_500+0.5)) * time.Millisecond
	if d := m.RecordAndThrottle(Produce, "ANONYMOUS", "p", 100); d != want || d != 9600*time.Millisecond {
		t.Fatalf("throttle %v, want %v", d, want)
	}
	if d := m.RecordAndThrottle(Produce, "ANONYMOUS", "p", 1<<30); d != 11*time.Second {
		t.Fatalf("a huge batch: throttle %v, want the 11 s bound", d)
	}
	// Request quota: 50% of a thread; 2 s of handler time in a fresh
	// 10 s window is 20% (fine), 8 s more is 100%: 10 s x (100-50)/50,
	// bounded by one window.
	if d := m.RecordAndThrottle(Request, "ANONYMOUS", "p", Percentage(2*time.Second)); d != 0 {
		t.Fatalf("request quota at 20%%: throttled %v", d)
	}
	if d := m.RecordAndThrottle(Request, "ANONYMOUS", "p", Percentage(8*time.Second)); d != time.Second {
		t.Fatalf("request quota at 100%%: throttle %v, want the 1 s bound", d)
	}
	// Fetch has no quota set for p, and the fetch type is enabled (the
	// entity exists), so it measures but never throttles.
	if d := m.RecordAndThrottle(Fetch, "ANONYMOUS", "p", 1<<30); d != 0 {
		t.Fatalf("fetch without a quota: throttled %v", d)
	}
}

// TestUnrecordAndLimitChange: a throttled fetch's bytes come back out, a
// quota raised at run time lifts the throttle on the existing sensor, and
// removing the quota leaves the client unlimited.
func TestUnrecordAndLimitChange(t *testing.T) {
	m, _ := newTestManager(Config{})
	e := Entity{User: DefaultPart}
	m.Update(e, map[string]string{ConsumerByteRate: "1000"})
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 20_000); d == 0 {
		t.Fatal("20 kB over a 1000 B/s quota was not throttled")
	}
	m.Unrecord(Fetch, "bob", "c", 20_000)
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 5_000); d != 0 {
		t.Fatalf("after the throttled fetch was unrecorded, 5 kB throttled %v", d)
	}
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 10_000); d == 0 {
		t.Fatal("15 kB not throttled")
	}
	m.Update(e, map[string]string{ConsumerByteRate: "1000000"})
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 1); d != 0 {
		t.Fatalf("after raising the quota: throttled %v", d)
	}
	m.Update(e, map[string]string{ConsumerByteRate: "1"})
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 1); d == 0 {
		t.Fatal("after lowering the quota: not throttled")
	}
	m.Update(e, nil)
	if got := m.Limit(Fetch, "bob", "c"); got != Unlimited {
		t.Fatalf("after removing the quota: limit %v", got)
	}
	if d := m.RecordAndThrottle(Fetch, "bob", "c", 1<<30); d != 0 {
		t.Fatalf("after removing the quota: throttled %v", d)
	}
}

// TestNotEnabledRecordsNothing: with no quota ever configured for a type
// nothing is measured and no sensor exists; the static defaults enable
// the byte-rate types at the client-id level.
func TestNotEnabledRecordsNothing(t *testing.T) {
	m, _ := newTestManager(Config{})
	for _, tt := range Types {
		if m.Enabled(tt) || m.RecordAndThrottle(tt, "u", "c", 1e12) != 0 {
			t.Fatalf("%v: enabled or throttled with no quota", tt)
		}
	}
	if st := m.Stats(); len(st) != 0 {
		t.Fatalf("sensors without quotas: %+v", st)
	}
	if v := m.MaxValueInWindow(Fetch, "u", "c"); !math.IsInf(v, 1) {
		t.Fatalf("MaxValueInWindow without quotas: %v", v)
	}
	m2, _ := newTestManager(Config{ProducerDefault: 1000, ConsumerDefault: math.MaxInt64})
	if !m2.Enabled(Produce) || m2.Enabled(Fetch) || m2.Enabled(Request) {
		t.Fatal("quota.producer.default should enable the produce quota only")
	}
	if d := m2.RecordAndThrottle(Produce, "u", "c", 20_000); d != 10*time.Second {
		t.Fatalf("static producer default: throttle %v, want 10s", d)
	}
	// Each client id has its own sensor under a client-id default.
	if d := m2.RecordAndThrottle(Produce, "u", "other", 10_000); d != 0 {
		t.Fatalf("another client id shares the sensor: throttled %v", d)
	}
	if v := m2.MaxValueInWindow(Produce, "u", "c"); v != 10_000 {
		t.Fatalf("MaxValueInWindow %v, want limit x 10 windows", v)
	}
}

// TestSharedUserSensor: a user quota is one rate for all of the user's
// client ids; a user that only got SCRAM credentials still switches the
// tags to the user level, as any user config change does in Kafka.
func TestSharedUserSensor(t *testing.T) {
	m, _ := newTestManager(Config{})
	m.Update(Entity{User: NamedPart("alice")}, map[string]string{ProducerByteRate: "1000", "SCRAM-SHA-256": "salt=..."})
	if d := m.RecordAndThrottle(Produce, "alice", "a", 10_000); d != 0 {
		t.Fatalf("first client: %v", d)
	}
	if d := m.RecordAndThrottle(Produce, "alice", "b", 10_000); d != 10*time.Second {
		t.Fatalf("second client of the same user: throttle %v, want 10s (shared rate)", d)
	}
	if d := m.RecordAndThrottle(Produce, "bob", "a", 1<<30); d != 0 {
		t.Fatalf("bob has no quota: %v", d)
	}
	st := m.Stats()
	if len(st) != 2 || st[0].User != "alice" || st[0].ClientID != "" || st[0].Limit != 1000 || st[1].User != "bob" || st[1].Limit != Unlimited {
		t.Fatalf("stats %+v", st)
	}
}

// TestThrottledStatsAndExpiry: the throttle-time average and mark show in
// Stats, and a sensor idle for an hour is dropped.
func TestThrottledStatsAndExpiry(t *testing.T) {
	m, clk := newTestManager(Config{})
	m.Update(Entity{Client: NamedPart("c")}, map[string]string{ProducerByteRate: "1000"})
	m.Throttled(Produce, "u", "c", 100*time.Millisecond)
	m.Throttled(Produce, "u", "c", 300*time.Millisecond)
	st := m.Stats()
	if len(st) != 1 || st[0].ThrottleTimeMs != 200 || !st[0].ThrottledUntil.Equal(clk.now().Add(300*time.Millisecond)) || st[0].ClientID != "c" || st[0].Type != Produce {
		t.Fatalf("stats %+v", st)
	}
	clk.set(SensorExpiry.Milliseconds())
	if st := m.Stats(); len(st) != 0 {
		t.Fatalf("idle sensor kept after an hour: %+v", st)
	}
}

// TestUpdateIgnoresBadValue: a value that is not a number clears the quota
// instead of failing the broker.
func TestUpdateIgnoresBadValue(t *testing.T) {
	m, _ := newTestManager(Config{})
	e := Entity{Client: NamedPart("c")}
	m.Update(e, map[string]string{ProducerByteRate: "1000"})
	m.Update(e, map[string]string{ProducerByteRate: "lots"})
	if got := m.Limit(Produce, "u", "c"); got != Unlimited {
		t.Fatalf("limit %v after a bad value", got)
	}
}
