package consumerhealth

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Status is Burrow's status of a partition or group.
type Status int

// Burrow's status constants.
const (
	NotFound Status = 0
	OK       Status = 1
	Warning  Status = 2
	Error    Status = 3
	Stop     Status = 4
	Stall    Status = 5
	Rewind   Status = 6
)

var statusNames = [...]string{"NOTFOUND", "OK", "WARNING", "ERROR", "STOP", "STALL", "REWIND"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return "UNKNOWN"
	}
	return statusNames[s]
}

// Key names one partition of one group.
type Key struct {
	Group     string
	Topic     string
	Partition int32
}

// Sample is one observation of a group's partition.
type Sample struct {
	Time      time.Time // when it was observed
	Committed int64     // the group's committed offset
	// CommitTime is when the coordinator stored that commit; zero when
	// the observer cannot know (a new commit is then a changed offset).
	CommitTime time.Time
	// End is the partition's high watermark at Time; negative if unknown.
	End int64
}

// Config tunes the window.
type Config struct {
	// Intervals is the number of commits the window holds (Burrow's
	// intervals, 10).
	Intervals int
	// MinDistance: a commit closer than this to the previous one replaces
	// it (Burrow's min-distance, 0).
	MinDistance time.Duration
}

// DefaultConfig is Burrow's defaults.
func DefaultConfig() Config { return Config{Intervals: 10} }

type commit struct {
	offset int64
	at     time.Time
	lag    int64
}

type point struct {
	end int64
	at  time.Time
}

// history is one partition's window.
type history struct {
	commits []commit
	ends    []point
	lags    []int64 // recent lags, one per observation, for a sparkline
	last    Sample
}

// sparkLen is how many recent lags a partition keeps.
const sparkLen = 30

// Tracker keeps the windows of many partitions. It is safe for concurrent
// use.
type Tracker struct {
	cfg   Config
	mu    sync.Mutex
	parts map[Key]*history
}

// NewTracker returns an empty Tracker.
func NewTracker(cfg Config) *Tracker {
	if cfg.Intervals < 1 {
		cfg.Intervals = DefaultConfig().Intervals
	}
	return &Tracker{cfg: cfg, parts: map[Key]*history{}}
}

// Observe records one sample of a partition.
func (t *Tracker) Observe(k Key, s Sample) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.parts[k]
	if h == nil {
		h = &history{}
		t.parts[k] = h
	}
	lag := int64(-1)
	if s.End >= 0 {
		lag = max(s.End-s.Committed, 0)
		if n := len(h.ends); n == 0 || s.Time.After(h.ends[n-1].at) {
			h.ends = appendTrim(h.ends, point{s.End, s.Time}, 2*t.cfg.Intervals+1)
		}
		h.lags = appendTrim(h.lags, lag, sparkLen)
	}
	at := s.CommitTime
	if at.IsZero() {
		at = s.Time
	}
	n := len(h.commits)
	isNew := n == 0
	if n > 0 {
		prev := h.commits[n-1]
		if s.CommitTime.IsZero() {
			isNew = s.Committed != prev.offset
		} else {
			isNew = !s.CommitTime.Equal(prev.at) && s.CommitTime.After(prev.at)
		}
	}
	if isNew {
		c := commit{offset: s.Committed, at: at, lag: max(lag, 0)}
		if n > 0 && t.cfg.MinDistance > 0 && at.Sub(h.commits[n-1].at) < t.cfg.MinDistance {
			c.at = h.commits[n-1].at
			h.commits[n-1] = c
		} else {
			h.commits = appendTrim(h.commits, c, t.cfg.Intervals)
		}
	}
	h.last = s
}

func appendTrim[T any](s []T, v T, n int) []T {
	s = append(s, v)
	if len(s) > n {
		s = slices.Delete(s, 0, len(s)-n)
	}
	return s
}

// Forget drops every partition keep rejects (groups no longer coordinated
// here, partitions no longer committed).
func (t *Tracker) Forget(keep func(Key) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.parts {
		if !keep(k) {
			delete(t.parts, k)
		}
	}
}

// Keys lists the tracked partitions.
func (t *Tracker) Keys() []Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Key, 0, len(t.parts))
	for k := range t.parts {
		out = append(out, k)
	}
	return out
}

// Catchup says what ETA means.
type Catchup int

const (
	// CatchupUnknown: nothing consumed over the window; no estimate.
	CatchupUnknown Catchup = iota
	// CaughtUp: no lag.
	CaughtUp
	// CatchingUp: consuming faster than producers write; ETA is when the
	// lag reaches 0 at these rates.
	CatchingUp
	// FallingBehind: producers write at least as fast as the group reads;
	// ETA is what the backlog alone takes at the consume rate, and it
	// grows while that lasts.
	FallingBehind
)

// PartitionHealth is one partition's evaluation.
type PartitionHealth struct {
	Key
	Status    Status
	Committed int64
	End       int64 // high watermark; -1 unknown
	Lag       int64 // -1 unknown
	// TimeLag is now minus the time of the next record to read (0 when
	// caught up); TimeLagKnown false when it could not be learned.
	TimeLag      time.Duration
	TimeLagKnown bool
	// ConsumeRate and ProduceRate are records per second over the window.
	ConsumeRate, ProduceRate float64
	ETA                      time.Duration
	Catchup                  Catchup
	// Lags are the recent lags, oldest first (a sparkline's data).
	Lags []int64
	// Commits is how many commits the window holds; Complete whether it
	// is full.
	Commits  int
	Complete bool
}

// Evaluate judges one partition at now. recordTime, when not nil, gives
// the timestamp of the first record at or after the committed offset
// (false: unknown; the time lag is then interpolated).
func (t *Tracker) Evaluate(k Key, now time.Time, recordTime func(offset int64) (time.Time, bool)) (PartitionHealth, bool) {
	t.mu.Lock()
	h := t.parts[k]
	if h == nil {
		t.mu.Unlock()
		return PartitionHealth{Key: k, Status: NotFound, End: -1, Lag: -1}, false
	}
	commits := slices.Clone(h.commits)
	ends := slices.Clone(h.ends)
	lags := slices.Clone(h.lags)
	last := h.last
	intervals := t.cfg.Intervals
	t.mu.Unlock()

	ph := PartitionHealth{Key: k, Committed: last.Committed, End: last.End, Lag: -1, Lags: lags,
		Commits: len(commits), Complete: len(commits) >= intervals}
	if last.End >= 0 {
		ph.Lag = max(last.End-last.Committed, 0)
	}
	recent := make([]int64, 0, intervals)
	for i := max(0, len(ends)-intervals); i < len(ends); i++ {
		recent = append(recent, ends[i].end)
	}
	ph.Status = evaluate(commits, recent, ph.Lag, now)

	switch {
	case ph.Lag == 0:
		ph.TimeLag, ph.TimeLagKnown = 0, true
	case ph.Lag > 0:
		if recordTime != nil {
			if ts, ok := recordTime(last.Committed); ok {
				ph.TimeLag, ph.TimeLagKnown = max(now.Sub(ts), 0), true
			}
		}
		if !ph.TimeLagKnown {
			if ts, ok := interpolate(ends, last.Committed); ok {
				ph.TimeLag, ph.TimeLagKnown = max(now.Sub(ts), 0), true
			}
		}
	}

	if n := len(commits); n >= 2 {
		if span := commits[n-1].at.Sub(commits[0].at).Seconds(); span > 0 {
			ph.ConsumeRate = max(float64(commits[n-1].offset-commits[0].offset)/span, 0)
		}
	}
	if n := len(ends); n >= 2 {
		if span := ends[n-1].at.Sub(ends[0].at).Seconds(); span > 0 {
			ph.ProduceRate = max(float64(ends[n-1].end-ends[0].end)/span, 0)
		}
	}
	switch {
	case ph.Lag == 0:
		ph.Catchup = CaughtUp
	case ph.Lag < 0 || ph.ConsumeRate <= 0:
		ph.Catchup = CatchupUnknown
	case ph.ConsumeRate > ph.ProduceRate:
		ph.Catchup = CatchingUp
		ph.ETA = seconds(float64(ph.Lag) / (ph.ConsumeRate - ph.ProduceRate))
	default:
		ph.Catchup = FallingBehind
		ph.ETA = seconds(float64(ph.Lag) / ph.ConsumeRate)
	}
	return ph, true
}

func seconds(s float64) time.Duration {
	if s > math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

// evaluate is Burrow's partition evaluation (its current rules) over the
// window: with lag now, STOP first (unless the group was caught up within
// the recent high watermarks), then, if no commit in the window was at lag
// 0, REWIND, STALL and WARNING in that order.
func evaluate(commits []commit, recentEnds []int64, lag int64, now time.Time) Status {
	if len(commits) == 0 || lag <= 0 {
		return OK // nothing to judge, or caught up now (or the end is unknown)
	}
	first, last := commits[0], commits[len(commits)-1]
	if now.Sub(last.at) > last.at.Sub(first.at) {
		recentlyCaughtUp := false
		for _, e := range recentEnds {
			recentlyCaughtUp = recentlyCaughtUp || e <= last.offset
		}
		if !recentlyCaughtUp {
			return Stop
		}
	}
	for _, c := range commits {
		if c.lag == 0 {
			return OK
		}
	}
	for i := 1; i < len(commits); i++ {
		if commits[i].offset < commits[i-1].offset {
			return Rewind
		}
	}
	stalled := true
	for _, c := range commits[1:] {
		stalled = stalled && c.offset == first.offset
	}
	if stalled {
		return Stall
	}
	for i := 1; i < len(commits); i++ {
		if commits[i].lag < commits[i-1].lag {
			return OK
		}
	}
	return Warning
}

// interpolate finds when the log's end passed offset o, between the two
// observed ends around it (kafka-lag-exporter's lookup), or extrapolated
// from the first and last when none brackets it.
func interpolate(ends []point, o int64) (time.Time, bool) {
	if len(ends) < 2 {
		return time.Time{}, false
	}
	for i := len(ends) - 1; i > 0; i-- {
		l, r := ends[i-1], ends[i]
		if l.end <= o && o <= r.end && r.end > l.end {
			return at(l, r, o), true
		}
	}
	l, r := ends[0], ends[len(ends)-1]
	if r.end <= l.end {
		return time.Time{}, false
	}
	return at(l, r, o), true
}

func at(l, r point, o int64) time.Time {
	frac := float64(r.end-o) / float64(r.end-l.end)
	return r.at.Add(-time.Duration(frac * float64(r.at.Sub(l.at))))
}

// GroupHealth is one group's evaluation: its worst partition status and
// its partitions.
type GroupHealth struct {
	Group      string
	Status     Status
	TotalLag   int64
	MaxTimeLag time.Duration
	Partitions []PartitionHealth
}

// Group evaluates every tracked partition of group.
func (t *Tracker) Group(group string, now time.Time, recordTime func(topic string, partition int32, offset int64) (time.Time, bool)) GroupHealth {
	var keys []Key
	for _, k := range t.Keys() {
		if k.Group == group {
			keys = append(keys, k)
		}
	}
	return t.evaluateGroup(group, keys, now, recordTime)
}

// Groups evaluates every tracked group, sorted by name.
func (t *Tracker) Groups(now time.Time, recordTime func(topic string, partition int32, offset int64) (time.Time, bool)) []GroupHealth {
	by := map[string][]Key{}
	for _, k := range t.Keys() {
		by[k.Group] = append(by[k.Group], k)
	}
	names := make([]string, 0, len(by))
	for g := range by {
		names = append(names, g)
	}
	slices.Sort(names)
	out := make([]GroupHealth, 0, len(names))
	for _, g := range names {
		out = append(out, t.evaluateGroup(g, by[g], now, recordTime))
	}
	return out
}

func (t *Tracker) evaluateGroup(group string, keys []Key, now time.Time, recordTime func(string, int32, int64) (time.Time, bool)) GroupHealth {
	slices.SortFunc(keys, func(a, b Key) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
	g := GroupHealth{Group: group, Status: NotFound}
	for _, k := range keys {
		var rt func(int64) (time.Time, bool)
		if recordTime != nil {
			rt = func(o int64) (time.Time, bool) { return recordTime(k.Topic, k.Partition, o) }
		}
		ph, ok := t.Evaluate(k, now, rt)
		if !ok {
			continue
		}
		g.Partitions = append(g.Partitions, ph)
		g.Status = max(g.Status, ph.Status)
		if ph.Lag > 0 {
			g.TotalLag += ph.Lag
		}
		if ph.TimeLagKnown {
			g.MaxTimeLag = max(g.MaxTimeLag, ph.TimeLag)
		}
	}
	return g
}

// Last is the latest sample of a partition.
func (t *Tracker) Last(k Key) (Sample, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.parts[k]
	if h == nil {
		return Sample{}, false
	}
	return h.last, true
}
