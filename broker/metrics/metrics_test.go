package metrics

import (
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestHistogramBuckets: a value lands in the first bucket whose bound is
// at or above it (bounds are inclusive, as Prometheus's le), and the
// snapshot's buckets are cumulative, with the count and sum of every
// observation.
func TestHistogramBuckets(t *testing.T) {
	bounds := BucketBounds()
	if len(bounds) != NumBuckets || bounds[0] != time.Microsecond || bounds[len(bounds)-1] != 50*time.Second {
		t.Fatalf("bounds %v", bounds)
	}
	for i := 1; i < len(bounds); i++ {
		if bounds[i] <= bounds[i-1] {
			t.Fatalf("bounds not increasing at %d: %v", i, bounds)
		}
	}
	// Every bound, one below and one above, against a linear search.
	for i, b := range bounds {
		for _, v := range []time.Duration{b - 1, b, b + 1} {
			want := 0
			for want < len(bounds) && v > bounds[want] {
				want++
			}
			if got := bucketOf(int64(v)); got != want {
				t.Errorf("bucketOf(%v) = %d, want %d (bound %d = %v)", v, got, want, i, b)
			}
		}
	}
	var h Histogram
	for _, d := range []time.Duration{0, -5, time.Microsecond, 3 * time.Millisecond, time.Minute} {
		h.Observe(d)
	}
	s := h.Snapshot()
	if s.Count != 5 || s.Sum != time.Microsecond+3*time.Millisecond+time.Minute {
		t.Fatalf("count %d sum %v", s.Count, s.Sum)
	}
	// 0, -5 and 1µs are <= 1µs; 3ms is <= 5ms; a minute is only in +Inf.
	at := func(d time.Duration) uint64 {
		for i, b := range bounds {
			if b == d {
				return s.Buckets[i]
			}
		}
		t.Fatalf("no bound %v", d)
		return 0
	}
	if at(time.Microsecond) != 3 || at(2*time.Millisecond) != 3 || at(5*time.Millisecond) != 4 || at(50*time.Second) != 4 {
		t.Fatalf("buckets %v", s.Buckets)
	}
	if h.Count() != 5 {
		t.Fatalf("Count %d", h.Count())
	}
}

// TestHistogramQuantile: interpolation within the bucket holding the rank.
func TestHistogramQuantile(t *testing.T) {
	var h Histogram
	if h.Snapshot().Quantile(0.99) != 0 {
		t.Fatal("quantile of nothing")
	}
	for range 90 {
		h.Observe(500 * time.Microsecond) // bucket (200µs, 500µs]
	}
	for range 10 {
		h.Observe(40 * time.Millisecond) // bucket (20ms, 50ms]
	}
	s := h.Snapshot()
	if q := s.Quantile(0.5); q <= 200*time.Microsecond || q > 500*time.Microsecond {
		t.Errorf("p50 %v", q)
	}
	if q := s.Quantile(0.99); q <= 20*time.Millisecond || q > 50*time.Millisecond {
		t.Errorf("p99 %v", q)
	}
}

// TestHistogramConcurrent: concurrent observations are all counted (run
// with -race).
func TestHistogramConcurrent(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				h.Observe(time.Duration(g*1000+i) * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	if n := h.Count(); n != 4000 {
		t.Fatalf("count %d", n)
	}
}

// TestTopicsTotalSurvivesRelease: a topic's counters are shared by its
// holders and removed with the last; the all-topics total keeps what the
// removed topic counted, so it never goes down.
func TestTopicsTotalSurvivesRelease(t *testing.T) {
	ts := NewTopics()
	a0, a1, b := ts.Acquire("a"), ts.Acquire("a"), ts.Acquire("b")
	if a0 != a1 || a0 == b {
		t.Fatal("handles of one topic differ, or two topics share one")
	}
	a0.Appended(10, 1000)
	a1.Appended(5, 500)
	b.Appended(1, 100)
	b.Fetched(false, 0, 70)
	b.Fetched(true, 0, 30)

	topics, total := ts.Snapshot()
	if len(topics) != 2 || topics[0].Topic != "a" || topics[0].MessagesIn != 15 || topics[0].BytesIn != 1500 || topics[0].TotalProduce != 2 {
		t.Fatalf("topics %+v", topics)
	}
	if topics[1].BytesOut != 70 || topics[1].ReplicationBytesOut != 30 || topics[1].TotalFetch != 2 {
		t.Fatalf("topic b %+v", topics[1])
	}
	if total.MessagesIn != 16 || total.BytesIn != 1600 {
		t.Fatalf("total %+v", total)
	}
	ts.Release("a")
	if _, ok := ts.Lookup("a"); !ok {
		t.Fatal("a removed while a partition still holds it")
	}
	ts.Release("a")
	if _, ok := ts.Lookup("a"); ok {
		t.Fatal("a kept after its last holder released it")
	}
	topics, total = ts.Snapshot()
	if len(topics) != 1 || total.MessagesIn != 16 || total.BytesIn != 1600 || total.TotalProduce != 3 {
		t.Fatalf("after release: topics %+v total %+v", topics, total)
	}
	// A topic of the same name starts from zero; the total goes on.
	ts.Acquire("a").Appended(1, 1)
	topics, total = ts.Snapshot()
	if topics[0].MessagesIn != 1 || total.MessagesIn != 17 {
		t.Fatalf("recreated: topics %+v total %+v", topics, total)
	}
	var none *Topics
	none.Acquire("x").Appended(1, 1) // a throwaway handle, not a panic
	none.Release("x")
}

// TestProduceAndFetchFailures: Kafka's split of partition errors into
// expected ones, failed requests and rejected bytes.
func TestProduceAndFetchFailures(t *testing.T) {
	ts := NewTopics()
	s := ts.Acquire("t")
	s.ProduceFailed(kerr.NotLeaderForPartition.Code, 100)
	s.ProduceFailed(kerr.MessageTooLarge.Code, 2000)
	s.ProduceFailed(kerr.CorruptMessage.Code, 300)
	s.ProduceFailed(kerr.NotEnoughReplicas.Code, 10)
	s.ProduceFailed(kerr.InvalidRecord.Code, 10)
	s.Fetched(false, kerr.OffsetOutOfRange.Code, 0)
	s.Fetched(false, kerr.FencedLeaderEpoch.Code, 0)
	s.Fetched(false, kerr.UnknownServerError.Code, 0)
	c := s.Counts()
	want := TopicCounts{TotalProduce: 5, BytesRejected: 2300, FailedProduce: 2, TotalFetch: 3, FailedFetch: 1}
	if c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
}

// TestRequestStats: Fetch splits into FetchConsumer and FetchFollower;
// versions, error runs and phase times are recorded where they belong.
func TestRequestStats(t *testing.T) {
	r := NewRequests()
	if r.For(0, false).Name != "Produce" || r.For(1, false).Name != "FetchConsumer" || r.For(1, true).Name != "FetchFollower" || r.For(3, true).Name != "Metadata" {
		t.Fatal("names")
	}
	if r.For(-1, false) != nil || r.For(maxKey, false) != nil || (*Requests)(nil).For(0, false) != nil {
		t.Fatal("out of range keys have stats")
	}
	p := r.For(0, false)
	tm := RequestTimes{Received: time.Unix(1000, 0), Started: time.Microsecond, Served: 50 * time.Microsecond,
		Resolving: 60 * time.Microsecond, Resolved: 3 * time.Millisecond, Throttle: 0}
	p.Done(9, &tm, 3100*time.Microsecond)
	p.Done(9, &tm, 3100*time.Microsecond)
	p.Done(99, &tm, 3100*time.Microsecond)
	tally := p.NewErrorTally()
	for _, c := range []int16{0, 0, 0, 6, 6, 0, 500} {
		tally.Add(c)
	}
	tally.Flush()
	tally.Flush() // nothing left: adds nothing

	snaps := r.Snapshot()
	if len(snaps) != 1 || snaps[0].Name != "Produce" {
		t.Fatalf("snapshots %+v", snaps)
	}
	s := snaps[0]
	if s.Versions[9] != 2 || s.Versions[maxVersion] != 1 {
		t.Fatalf("versions %v", s.Versions)
	}
	if s.Errors[0] != 4 || s.Errors[6] != 2 || s.Errors[-1] != 1 || len(s.Errors) != 3 {
		t.Fatalf("errors %v", s.Errors)
	}
	if s.TotalTime.Count != 3 || s.TotalTime.Sum != 3*3100*time.Microsecond {
		t.Fatalf("total %+v", s.TotalTime)
	}
	if s.LocalTime.Sum != 3*49*time.Microsecond || s.RemoteTime.Sum != 3*2940*time.Microsecond ||
		s.ResponseQueueTime.Sum != 3*10*time.Microsecond || s.ResponseSendTime.Sum != 3*100*time.Microsecond ||
		s.RequestQueueTime.Sum != 3*time.Microsecond || s.ThrottleTime.Count != 3 || s.ThrottleTime.Sum != 0 {
		t.Fatalf("phases %+v", s)
	}
	if r.LocalTimeTotal() != 3*49*time.Microsecond {
		t.Fatalf("local total %v", r.LocalTimeTotal())
	}
}

// TestRegistryCounters: the ISR and election hooks, and that a nil
// registry ignores them.
func TestRegistryCounters(t *testing.T) {
	r := New()
	r.ISRChanged(3, 2)
	r.ISRChanged(2, 3)
	r.ISRChanged(2, 3)
	r.ISRChanged(3, 3)
	r.ISRUpdateFailed()
	r.UncleanElection()
	r.ObserveLeaderElection(time.Millisecond)
	r.ObserveFlush(2 * time.Millisecond)
	if c := r.Counters(); c != (Counters{ISRShrinks: 1, ISRExpands: 2, FailedISRUpdates: 1, UncleanElections: 1}) {
		t.Fatalf("counters %+v", c)
	}
	if r.LeaderElection.Count() != 1 || r.LogFlush.Sum() != 2*time.Millisecond {
		t.Fatal("timers")
	}
	var none *Registry
	none.ISRChanged(3, 1)
	none.ISRUpdateFailed()
	none.UncleanElection()
	none.ObserveLeaderElection(time.Second)
	none.ObserveFlush(time.Second)
	if none.Counters() != (Counters{}) || none.TopicSet() != nil || none.RequestSet() != nil {
		t.Fatal("nil registry")
	}
}

func BenchmarkHistogramObserve(b *testing.B) {
	var h Histogram
	for i := 0; b.Loop(); i++ {
		h.Observe(time.Duration(i&0xffff) * 100)
	}
}
