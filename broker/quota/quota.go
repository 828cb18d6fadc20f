package quota

import (
	"math"
	"sync/atomic"
	"time"
)

// Unlimited is the limit of a quota nobody set: Long.MAX_VALUE bytes/s,
// Kafka's default for the replication throttled rates.
const Unlimited int64 = math.MaxInt64

// Config shapes a Quota.
type Config struct {
	Samples int           // replication.quota.window.num (Kafka: 11)
	Window  time.Duration // replication.quota.window.size.seconds (Kafka: 1 s)
	Limit   int64         // bytes/s; Unlimited for none (0 is a real limit)
	Clock   func() time.Time
}

// Quota is one side's replication quota: a byte Rate against a limit that
// can change at any time. Safe for concurrent use.
type Quota struct {
	limit atomic.Int64
	meter *Meter

	recorded atomic.Int64 // bytes ever recorded
	heldBack atomic.Int64 // times a replica's data was held back
}

// New builds a quota. A zero Samples or Window takes Kafka's default (11
// samples of 1 s); Limit is taken as given (0 is a valid, if harsh, limit),
// so callers wanting no limit pass Unlimited.
func New(cfg Config) *Quota {
	q := &Quota{meter: NewMeter(cfg.Samples, cfg.Window, cfg.Clock)}
	q.SetLimit(cfg.Limit)
	return q
}

// SetLimit changes the limit (bytes/s); recorded history is kept, as
// Kafka keeps the sensor when the quota changes. Negative means Unlimited.
func (q *Quota) SetLimit(bytesPerSec int64) {
	if bytesPerSec < 0 {
		bytesPerSec = Unlimited
	}
	q.limit.Store(bytesPerSec)
}

// Limit is the current limit in bytes/s.
func (q *Quota) Limit() int64 { return q.limit.Load() }

// Record counts bytes of throttled replicas' traffic.
func (q *Quota) Record(bytes int64) {
	if bytes <= 0 {
		return
	}
	q.recorded.Add(bytes)
	q.meter.Record(float64(bytes))
}

// Rate is the measured rate in bytes/s.
func (q *Quota) Rate() float64 { return q.meter.Rate() }

// IsExceeded reports whether the rate is above the limit, in which case
// throttled replicas outside the ISR are held back.
func (q *Quota) IsExceeded() bool {
	limit := q.Limit()
	if limit == Unlimited {
		// No rate can exceed it; skip the measurement on the fetch path.
		return false
	}
	return q.Rate() > float64(limit)
}

// HeldBack counts one replica whose data was left out of a fetch because
// the quota was exceeded.
func (q *Quota) HeldBack() { q.heldBack.Add(1) }

// Stats is a snapshot for metrics.
type Stats struct {
	RecordedBytes int64   // bytes ever recorded
	HeldBack      int64   // replicas held back, ever
	Rate          float64 // bytes/s now
	Limit         int64   // bytes/s
	Exceeded      bool    // throttled replicas outside the ISR are held back now
}

// Stats returns the quota's counters and current rate.
func (q *Quota) Stats() Stats {
	r := q.Rate()
	limit := q.Limit()
	return Stats{
		RecordedBytes: q.recorded.Load(),
		HeldBack:      q.heldBack.Load(),
		Rate:          r,
		Limit:         limit,
		Exceeded:      limit != Unlimited && r > float64(limit),
	}
}
