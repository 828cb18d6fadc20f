package tui

import (
	"math"
	"time"
)

// trendLen is how many samples a series keeps: two minutes at the default
// two-second refresh, and a bound on memory whatever the cluster's size.
const trendLen = 60

// series is a bounded history of one measure, oldest first; NaN marks a
// sample that could not be computed (a counter reset, a failed refresh).
type series struct{ vals []float64 }

func (s *series) add(v float64) {
	s.vals = append(s.vals, v)
	if len(s.vals) > trendLen {
		s.vals = append(s.vals[:0], s.vals[len(s.vals)-trendLen:]...)
	}
}

// last is the latest sample, if it is known.
func (s *series) last() (float64, bool) {
	if s == nil || len(s.vals) == 0 || math.IsNaN(s.vals[len(s.vals)-1]) {
		return 0, false
	}
	return s.vals[len(s.vals)-1], true
}

func (s *series) values() []float64 {
	if s == nil {
		return nil
	}
	return s.vals
}

// trends turns consecutive snapshots into rates and their recent history.
// Rates are deltas between two snapshots over the time between them, so
// they exist from the second snapshot on:
//
//   - records in, per partition, topic, broker (the partitions it leads)
//     and cluster: high watermark deltas (ListOffsets), which any Kafka
//     answers;
//   - records consumed per topic, group and broker (the partitions it
//     leads, which consumers fetch from): committed offsets, which move
//     only when a consumer commits (every auto.commit.interval.ms, 5 s by
//     default, often longer than a refresh), so the rate is taken
//     between the commits seen to change (see commitTrack), not between
//     two refreshes, which would read 0 between commits and double after;
//   - bytes in and out per broker, and per topic where the brokers report
//     topic counters: their admin endpoints' counters (Broker.Counters),
//     so only with --admin;
//   - consumer lag per group and in total: the lag itself, sampled.
//
// A series exists only for what the latest snapshot holds, so memory stays
// bounded by the cluster's size times trendLen.
type trends struct {
	prev *Snapshot

	partIn map[tp]float64 // records/s of each partition, latest only

	topicIn, topicOut             map[string]*series // records/s
	topicBytesIn, topicBytesOut   map[string]*series
	brokerIn, brokerOut           map[int32]*series // records/s into and consumed from partitions it leads
	brokerBytesIn, brokerBytesOut map[int32]*series // bytes/s in, out
	groupLag, groupRate           map[string]*series
	commits                       map[groupPartition]*commitTrack

	clusterIn, clusterBytesIn, clusterBytesOut, clusterLag series
}

// groupPartition is a partition one group commits on.
type groupPartition struct {
	group string
	tp
}

// commitWindow is how far back a consumption rate looks: long enough to
// span several commits at the default auto.commit.interval.ms (5 s), so
// that when a refresh sees each commit is averaged out.
const commitWindow = 30 * time.Second

// commitTrack is what is known of one group's commits on a partition:
// the latest committed offset, when it was first seen, and the changes
// seen within commitWindow (the last two whatever their age).
type commitTrack struct {
	last    int64
	seen    time.Time
	changes []commitPoint
}

type commitPoint struct {
	at     time.Time
	offset int64
}

// observe takes the committed offset seen at now, dt seconds after the
// previous snapshot. A change is dated halfway between the two snapshots,
// since the commit happened somewhere between them; an offset that went
// back (a reset) starts the track again.
func (c *commitTrack) observe(offset int64, now time.Time, dt float64) {
	switch {
	case offset > c.last && dt > 0:
		at := now.Add(-time.Duration(dt / 2 * float64(time.Second)))
		c.changes = append(c.changes, commitPoint{at: at, offset: offset})
	case offset < c.last:
		c.changes, c.seen = nil, now
	}
	c.last = offset
	for len(c.changes) > 2 && now.Sub(c.changes[0].at) > commitWindow {
		c.changes = c.changes[1:]
	}
}

// rate is the records consumed per second at now: the offsets committed
// between the first and the last change in the window over the time
// between them. When no change came for twice the usual time between
// commits, or for a whole window, the consumer has stopped: 0. Unknown
// until two changes give an interval (one change says nothing of how
// long the records took) or a window passed without any.
func (c *commitTrack) rate(now time.Time) float64 {
	n := len(c.changes)
	if n < 2 {
		since := c.seen
		if n == 1 {
			since = c.changes[0].at
		}
		if now.Sub(since) >= commitWindow {
			return 0
		}
		return math.NaN()
	}
	first, last := c.changes[0], c.changes[n-1]
	span := last.at.Sub(first.at)
	if span <= 0 {
		return math.NaN()
	}
	if idle := now.Sub(last.at); idle > 2*span/time.Duration(n-1) && idle > commitWindow/10 {
		return 0
	}
	return float64(last.offset-first.offset) / span.Seconds()
}

func newTrends() *trends { return &trends{} }

// rate is the per-second change from a to b over dt seconds; a negative
// change (a counter reset on restart, a truncated log) is unknown.
func rate(a, b, dt float64) float64 {
	if a < 0 || b < 0 || b < a || dt <= 0 {
		return math.NaN()
	}
	return (b - a) / dt
}

// sum adds v to the known total; NaN values leave it unknown only if
// nothing else is known.
type sum struct {
	v     float64
	known bool
}

func (s *sum) add(v float64) {
	if !math.IsNaN(v) {
		s.v += v
		s.known = true
	}
}

func (s sum) value() float64 {
	if !s.known {
		return math.NaN()
	}
	return s.v
}

func push[K comparable](m map[K]*series, k K, v float64) {
	s := m[k]
	if s == nil {
		s = &series{}
		m[k] = s
	}
	s.add(v)
}

// keep drops the series of keys no longer present.
func keep[K comparable](m map[K]*series, live map[K]bool) map[K]*series {
	out := make(map[K]*series, len(live))
	for k, s := range m {
		if live[k] {
			out[k] = s
		}
	}
	return out
}

// add takes a new snapshot.
func (t *trends) add(s *Snapshot) {
	prev := t.prev
	t.prev = s
	dt := 0.0
	if prev != nil {
		dt = s.Taken.Sub(prev.Taken).Seconds()
	}
	if dt <= 0 {
		// The first snapshot, or a clock step: no rates yet, only levels.
		prev = nil
	}

	prevHW := map[tp]int64{}
	if prev != nil {
		for _, pt := range prev.Topics {
			for _, p := range pt.Partitions {
				prevHW[tp{pt.Name, p.ID}] = p.HW
			}
		}
	}
	t.partIn = map[tp]float64{}
	topicIn := map[string]*sum{}
	brokerIn := map[int32]*sum{}
	var clusterIn sum
	liveTopics, liveBrokers, liveGroups := map[string]bool{}, map[int32]bool{}, map[string]bool{}
	for _, b := range s.Brokers {
		liveBrokers[b.ID] = true
		brokerIn[b.ID] = &sum{}
	}
	for _, tt := range s.Topics {
		liveTopics[tt.Name] = true
		topicIn[tt.Name] = &sum{}
		for _, p := range tt.Partitions {
			k := tp{tt.Name, p.ID}
			before, ok := prevHW[k]
			if prev == nil || !ok {
				continue
			}
			r := rate(float64(before), float64(p.HW), dt)
			if math.IsNaN(r) {
				continue
			}
			t.partIn[k] = r
			topicIn[tt.Name].add(r)
			clusterIn.add(r)
			if b := brokerIn[p.Leader]; b != nil {
				b.add(r)
			}
		}
	}

	// Consumption: between the commits seen to change.
	if t.commits == nil {
		t.commits = map[groupPartition]*commitTrack{}
	}
	liveCommits := map[groupPartition]bool{}
	topicOut := map[string]*sum{}
	for name := range liveTopics {
		topicOut[name] = &sum{}
	}
	leader := map[tp]int32{}
	brokerOut := map[int32]*sum{}
	for _, b := range s.Brokers {
		brokerOut[b.ID] = &sum{}
	}
	for _, tt := range s.Topics {
		for _, p := range tt.Partitions {
			leader[tp{tt.Name, p.ID}] = p.Leader
		}
	}
	var clusterLag sum
	if t.groupLag == nil {
		t.groupLag, t.groupRate = map[string]*series{}, map[string]*series{}
	}
	for _, g := range s.Groups {
		liveGroups[g.ID] = true
		lag, known := g.Lag()
		if known {
			push(t.groupLag, g.ID, float64(lag))
			clusterLag.add(float64(lag))
		} else {
			push(t.groupLag, g.ID, math.NaN())
		}
		var gr sum
		for _, o := range g.Offsets {
			if o.Committed < 0 {
				continue
			}
			k := tp{o.Topic, o.Partition}
			gk := groupPartition{g.ID, k}
			liveCommits[gk] = true
			c := t.commits[gk]
			if c == nil {
				t.commits[gk] = &commitTrack{last: o.Committed, seen: s.Taken}
				continue
			}
			c.observe(o.Committed, s.Taken, dt)
			r := c.rate(s.Taken)
			gr.add(r)
			if ts := topicOut[o.Topic]; ts != nil {
				ts.add(r)
			}
			if l, ok := leader[k]; ok && brokerOut[l] != nil {
				brokerOut[l].add(r)
			}
		}
		push(t.groupRate, g.ID, gr.value())
	}

	// Bytes: the brokers' counters.
	prevCounters := map[int32]*Counters{}
	if prev != nil {
		for _, b := range prev.Brokers {
			prevCounters[b.ID] = b.Counters
		}
	}
	var clusterBytesIn, clusterBytesOut sum
	topicBytesIn, topicBytesOut := map[string]*sum{}, map[string]*sum{}
	for name := range liveTopics {
		topicBytesIn[name], topicBytesOut[name] = &sum{}, &sum{}
	}
	if t.brokerBytesIn == nil {
		t.brokerBytesIn, t.brokerBytesOut, t.brokerIn, t.brokerOut = map[int32]*series{}, map[int32]*series{}, map[int32]*series{}, map[int32]*series{}
		t.topicIn, t.topicOut = map[string]*series{}, map[string]*series{}
		t.topicBytesIn, t.topicBytesOut = map[string]*series{}, map[string]*series{}
	}
	for _, b := range s.Brokers {
		in, out := math.NaN(), math.NaN()
		if c, p := b.Counters, prevCounters[b.ID]; c != nil && p != nil {
			in, out = rate(p.BytesIn, c.BytesIn, dt), rate(p.BytesOut, c.BytesOut, dt)
			for name, tc := range c.Topics {
				ptc, ok := p.Topics[name]
				if !ok || topicBytesIn[name] == nil {
					continue
				}
				topicBytesIn[name].add(rate(ptc.BytesIn, tc.BytesIn, dt))
				topicBytesOut[name].add(rate(ptc.BytesOut, tc.BytesOut, dt))
			}
		}
		push(t.brokerBytesIn, b.ID, in)
		push(t.brokerBytesOut, b.ID, out)
		clusterBytesIn.add(in)
		clusterBytesOut.add(out)
		push(t.brokerIn, b.ID, brokerIn[b.ID].value())
		push(t.brokerOut, b.ID, brokerOut[b.ID].value())
	}
	for name := range liveTopics {
		push(t.topicIn, name, topicIn[name].value())
		push(t.topicOut, name, topicOut[name].value())
		push(t.topicBytesIn, name, topicBytesIn[name].value())
		push(t.topicBytesOut, name, topicBytesOut[name].value())
	}
	t.clusterIn.add(clusterIn.value())
	t.clusterBytesIn.add(clusterBytesIn.value())
	t.clusterBytesOut.add(clusterBytesOut.value())
	t.clusterLag.add(clusterLag.value())

	t.topicIn, t.topicOut = keep(t.topicIn, liveTopics), keep(t.topicOut, liveTopics)
	t.topicBytesIn, t.topicBytesOut = keep(t.topicBytesIn, liveTopics), keep(t.topicBytesOut, liveTopics)
	t.brokerIn, t.brokerOut = keep(t.brokerIn, liveBrokers), keep(t.brokerOut, liveBrokers)
	t.brokerBytesIn, t.brokerBytesOut = keep(t.brokerBytesIn, liveBrokers), keep(t.brokerBytesOut, liveBrokers)
	t.groupLag, t.groupRate = keep(t.groupLag, liveGroups), keep(t.groupRate, liveGroups)
	for k := range t.commits {
		if !liveCommits[k] {
			delete(t.commits, k)
		}
	}
}

// partRate is a partition's records-in rate, if known.
func (t *trends) partRate(topic string, p int32) (float64, bool) {
	if t == nil {
		return 0, false
	}
	r, ok := t.partIn[tp{topic, p}]
	return r, ok
}
