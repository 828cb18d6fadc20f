package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestTrendsRates: records in from high watermark deltas (per partition,
// topic, the broker leading it, the cluster), consumption from committed
// offset deltas, bytes from the brokers' counters; none before a second
// snapshot.
func TestTrendsRates(t *testing.T) {
	snaps := busy()
	tr := newTrends()
	tr.add(snaps[0])
	if _, ok := tr.clusterIn.last(); ok {
		t.Fatal("a rate from one snapshot")
	}
	if v, ok := tr.groupLag["billing"].last(); !ok || v != 0 {
		t.Fatalf("lag is a level, known from the first snapshot: %v %v", v, ok)
	}
	tr.add(snaps[1]) // 40 records into each orders partition, 10 into each payments one, in 2s
	check := func(what string, s *series, want float64) {
		t.Helper()
		if v, ok := s.last(); !ok || v != want {
			t.Errorf("%s = %v (known %v), want %v", what, v, ok, want)
		}
	}
	if r, ok := tr.partRate("orders", 1); !ok || r != 20 {
		t.Errorf("orders-1 rate %v %v, want 20", r, ok)
	}
	check("orders", tr.topicIn["orders"], 60)
	check("payments", tr.topicIn["payments"], 10)
	check("__consumer_offsets", tr.topicIn["__consumer_offsets"], 0)
	check("cluster", &tr.clusterIn, 70)
	// Broker 1 leads orders-0 and __consumer_offsets-0; broker 3 leads
	// orders-2 and payments-1.
	check("broker 1", tr.brokerIn[1], 20)
	check("broker 3", tr.brokerIn[3], 25)
	// Consumption needs two commits seen to change: the first says
	// nothing of how long its records took.
	if v, ok := tr.groupRate["billing"].last(); ok {
		t.Errorf("billing consumed %v after one commit", v)
	}
	check("broker 2 bytes in", tr.brokerBytesIn[2], 40*1200/2)
	check("broker 2 bytes out", tr.brokerBytesOut[2], 40*3100/2)
	check("cluster bytes in", &tr.clusterBytesIn, 3*40*1200/2)
	check("orders bytes in (broker 1's topic counters)", tr.topicBytesIn["orders"], 40*1000/2)

	// A broker restarted: its counters went back; that sample is
	// unknown, not negative.
	s := snaps[2]
	s.Brokers[0].Counters = &Counters{BytesIn: 10, BytesOut: 10}
	tr.add(s)
	if v, ok := tr.brokerBytesIn[1].last(); ok {
		t.Errorf("a counter reset gave rate %v", v)
	}
	if _, ok := tr.brokerBytesIn[2].last(); !ok {
		t.Error("another broker's rate went with it")
	}
	// Each partition's commit went from 30 to 90 between the two
	// changes, 2 s apart.
	check("billing consumed", tr.groupRate["billing"], 90)
	check("consumed from broker 2 (it leads orders-1)", tr.brokerOut[2], 30)
	check("orders consumed", tr.topicOut["orders"], 90)
}

// TestConsumedRateSteady: a consumer reading 20 records a second and
// committing every 5 s (auto.commit.interval.ms), seen every 2 s, shows
// a steady rate near 20, never 0 between its commits nor a burst after
// one; once it stops, the rate goes to 0.
func TestConsumedRateSteady(t *testing.T) {
	tr := newTrends()
	start := fixedTime
	committed := func(at time.Duration) int64 {
		// Committed at 5 s marks: what was read by then.
		return int64(at/(5*time.Second)) * 5 * 20
	}
	stop := 90 * time.Second
	var rates []string
	for at := time.Duration(0); at <= 2*time.Minute; at += 2 * time.Second {
		s := healthy()
		s.Taken = start.Add(at)
		g := &s.Groups[0]
		g.Offsets = g.Offsets[:1]
		c := committed(min(at, stop))
		g.Offsets[0].Committed, g.Offsets[0].End = c, c
		tr.add(s)
		v, ok := tr.groupRate["billing"].last()
		rates = append(rates, fmt.Sprintf("%v:%.1f/%v", at, v, ok))
		switch {
		case at >= 12*time.Second && at <= stop && (!ok || v < 16 || v > 25):
			t.Errorf("at %v: rate %.1f (known %v), want about 20", at, v, ok)
		case at >= 30*time.Second && at <= stop && (v < 18 || v > 22.5):
			t.Errorf("at %v: rate %.1f once the window is full, want within 10%% of 20", at, v)
		case at >= stop+12*time.Second && (!ok || v != 0):
			t.Errorf("at %v, %v after the consumer stopped: rate %.1f (known %v), want 0", at, at-stop, v, ok)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Log(strings.Join(rates, " "))
	}
}

// TestTrendsBounded: a series keeps trendLen samples, and the series of
// a topic gone from the cluster go with it.
func TestTrendsBounded(t *testing.T) {
	tr := newTrends()
	for i := range trendLen + 25 {
		s := healthy()
		s.Taken = fixedTime.Add(time.Duration(i) * time.Second)
		if i > trendLen {
			s.Topics = s.Topics[:1] // payments and __consumer_offsets deleted
		}
		tr.add(s)
	}
	if n := len(tr.topicIn["orders"].vals); n != trendLen {
		t.Fatalf("%d samples kept, want %d", n, trendLen)
	}
	if len(tr.topicIn) != 1 || tr.topicIn["payments"] != nil || len(tr.partIn) != 3 {
		t.Fatalf("series of deleted topics kept: %d topics, %d partitions", len(tr.topicIn), len(tr.partIn))
	}
	for _, v := range tr.clusterIn.vals {
		if math.IsNaN(v) || v != 0 {
			t.Fatalf("idle cluster rate %v", v)
		}
	}
}

// TestParseCounters: the first family present wins; a sample labelled
// with a topic counts for it, an unlabelled one is the total.
func TestParseCounters(t *testing.T) {
	kafgoText := `# HELP kafgo_network_received_bytes_total Bytes received from clients.
# TYPE kafgo_network_received_bytes_total counter
kafgo_network_received_bytes_total 12345
# HELP kafgo_network_sent_bytes_total Bytes sent to clients.
# TYPE kafgo_network_sent_bytes_total counter
kafgo_network_sent_bytes_total 67890
# TYPE go_goroutines gauge
go_goroutines 12
`
	kafkaText := `# TYPE kafka_server_brokertopicmetrics_bytesin_total counter
kafka_server_brokertopicmetrics_bytesin_total 1000
kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 700
kafka_server_brokertopicmetrics_bytesin_total{topic="payments"} 300
# TYPE kafka_server_brokertopicmetrics_bytesout_total counter
kafka_server_brokertopicmetrics_bytesout_total{topic="orders"} 2000
kafka_server_brokertopicmetrics_bytesout_total{topic="payments"} 500
`
	c, err := parseCounters(strings.NewReader(kafgoText))
	if err != nil {
		t.Fatal(err)
	}
	if c.BytesIn != 12345 || c.BytesOut != 67890 || len(c.Topics) != 0 {
		t.Fatalf("kafgo's wire totals: %+v", c)
	}
	c, err = parseCounters(strings.NewReader(kafgoText + kafkaText))
	if err != nil {
		t.Fatal(err)
	}
	// BytesOut has no total sample: the topics' sum stands in.
	if c.BytesIn != 1000 || c.BytesOut != 2500 || c.Topics["orders"] != (TopicCounters{700, 2000}) || c.Topics["payments"] != (TopicCounters{300, 500}) {
		t.Fatalf("Kafka's BrokerTopicMetrics preferred: %+v", c)
	}
	c, err = parseCounters(strings.NewReader("# TYPE other counter\nother 1\n"))
	if err != nil || c.BytesIn != -1 || c.BytesOut != -1 {
		t.Fatalf("no byte counters: %+v %v", c, err)
	}
	if _, err := parseCounters(strings.NewReader("not { prometheus\n")); err == nil {
		t.Fatal("garbage parsed")
	}
}
