package tui

import "math"

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
//     leads, which consumers fetch from): committed offset deltas;
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

	topicIn, topicOut           map[string]*series // records/s
	topicBytesIn, topicBytesOut map[string]*series
	brokerIn, brokerOut         map[int32]*series // records/s into and consumed from partitions it leads
	brokerBytesIn, brokerBytes  map[int32]*series // bytes/s in, out
	groupLag, groupRate         map[string]*series

	clusterIn, clusterBytesIn, clusterBytesOut, clusterLag series
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

	// Consumption: committed offset deltas.
	prevCommitted := map[string]map[tp]int64{}
	if prev != nil {
		for _, g := range prev.Groups {
			m := map[tp]int64{}
			for _, o := range g.Offsets {
				m[tp{o.Topic, o.Partition}] = o.Committed
			}
			prevCommitted[g.ID] = m
		}
	}
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
		if before, ok := prevCommitted[g.ID]; ok {
			for _, o := range g.Offsets {
				k := tp{o.Topic, o.Partition}
				c, ok := before[k]
				if !ok {
					continue
				}
				r := rate(float64(c), float64(o.Committed), dt)
				gr.add(r)
				if ts := topicOut[o.Topic]; ts != nil {
					ts.add(r)
				}
				if l, ok := leader[k]; ok && brokerOut[l] != nil {
					brokerOut[l].add(r)
				}
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
		t.brokerBytesIn, t.brokerBytes, t.brokerIn, t.brokerOut = map[int32]*series{}, map[int32]*series{}, map[int32]*series{}, map[int32]*series{}
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
		push(t.brokerBytes, b.ID, out)
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
	t.brokerBytesIn, t.brokerBytes = keep(t.brokerBytesIn, liveBrokers), keep(t.brokerBytes, liveBrokers)
	t.groupLag, t.groupRate = keep(t.groupLag, liveGroups), keep(t.groupRate, liveGroups)
}

// partRate is a partition's records-in rate, if known.
func (t *trends) partRate(topic string, p int32) (float64, bool) {
	if t == nil {
		return 0, false
	}
	r, ok := t.partIn[tp{topic, p}]
	return r, ok
}
