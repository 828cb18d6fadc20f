package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/group"
	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/internal/adminapi"
	"kafgo/internal/testing/promtext"
)

// gather serves src's collector through a registry, as /metrics does
// (the registry's consistency checks included), and parses the text.
func gather(t *testing.T, src Source) []promtext.Sample {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(src))
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics %d: %s", rec.Code, rec.Body.String())
	}
	s, err := promtext.Parse(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustValue(t *testing.T, s []promtext.Sample, name string, labels map[string]string) float64 {
	t.Helper()
	v, ok := promtext.Value(s, name, labels)
	if !ok {
		t.Fatalf("no %s%v", name, labels)
	}
	return v
}

// TestTopicAndRequestFamilies: BrokerTopicMetrics go out per topic and in
// total under one name (total without a topic label; replication bytes
// only in total); request histograms go out in milliseconds with Kafka's
// request and error names.
func TestTopicAndRequestFamilies(t *testing.T) {
	reg := metrics.New()
	a := reg.Topics.Acquire("a")
	a.Appended(10, 1000)
	a.ReplicationBytesIn.Add(77)
	reg.Topics.Acquire("b").ProduceFailed(kerr.InvalidRecord.Code, 5)
	p := reg.Requests.For(0, false)
	p.Done(9, &metrics.RequestTimes{Received: time.Unix(100, 0), Served: 3 * time.Millisecond,
		Resolving: 3 * time.Millisecond, Resolved: 3 * time.Millisecond}, 4*time.Millisecond)
	tally := p.NewErrorTally()
	tally.Add(kerr.NotLeaderForPartition.Code)
	tally.Add(0)
	tally.Flush()

	s := gather(t, Source{Metrics: reg})
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"kafka_server_brokertopicmetrics_messagesin_total", map[string]string{"topic": "a"}, 10},
		{"kafka_server_brokertopicmetrics_messagesin_total", nil, 10},
		{"kafka_server_brokertopicmetrics_bytesin_total", map[string]string{"topic": "a"}, 1000},
		{"kafka_server_brokertopicmetrics_failedproducerequests_total", map[string]string{"topic": "b"}, 1},
		{"kafka_server_brokertopicmetrics_failedproducerequests_total", nil, 1},
		{"kafka_server_brokertopicmetrics_totalproducerequests_total", nil, 2},
		{"kafka_server_brokertopicmetrics_replicationbytesin_total", nil, 77},
		{"kafka_network_requestmetrics_requests_total", map[string]string{"request": "Produce", "version": "9"}, 1},
		{"kafka_network_requestmetrics_errors_total", map[string]string{"request": "Produce", "error": "NOT_LEADER_OR_FOLLOWER"}, 1},
		{"kafka_network_requestmetrics_errors_total", map[string]string{"request": "Produce", "error": "NONE"}, 1},
		{"kafka_network_requestmetrics_totaltimems_sum", map[string]string{"request": "Produce"}, 4},
		{"kafka_network_requestmetrics_localtimems_sum", map[string]string{"request": "Produce"}, 3},
		{"kafka_network_requestmetrics_localtimems_bucket", map[string]string{"request": "Produce", "le": "2"}, 0},
		{"kafka_network_requestmetrics_localtimems_bucket", map[string]string{"request": "Produce", "le": "5"}, 1},
		{"kafka_network_requestmetrics_localtimems_count", map[string]string{"request": "Produce"}, 1},
	} {
		if got := mustValue(t, s, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := promtext.Value(s, "kafka_server_brokertopicmetrics_replicationbytesin_total", map[string]string{"topic": "a"}); ok {
		t.Error("replication bytes exported per topic (Kafka has them for all topics only)")
	}
	if n := len(promtext.Find(s, "kafka_network_requestmetrics_requests_total", nil)); n != 1 {
		t.Errorf("%d request series, want only Produce's", n)
	}
	// With nothing but counters, the handler idle ratio is defined.
	if v := mustValue(t, s, "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent", nil); v < 0 || v > 1 {
		t.Errorf("handler idle %v", v)
	}
}

// TestGroupLag: lag is the HW minus the committed offset, floored at 0,
// summed per topic; a partition whose HW is unknown has an offset series
// and no lag; the GroupMetadataManager gauges count by state.
func TestGroupLag(t *testing.T) {
	tp := func(topic string, p int32) partid.TopicPartition {
		return partid.TopicPartition{Topic: topic, Partition: p}
	}
	src := Source{
		Groups: func() []group.GroupSnapshot {
			return []group.GroupSnapshot{
				{ID: "g", State: group.Stable, Members: 2, Offsets: map[partid.TopicPartition]int64{tp("t", 0): 10, tp("t", 1): 50, tp("u", 0): 3}},
				{ID: "h", State: group.Empty, Offsets: map[partid.TopicPartition]int64{tp("t", 0): 40}},
			}
		},
		EndOffsets: func(_ context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64 {
			if len(tps) != 3 {
				t.Errorf("end offsets asked for %v", tps)
			}
			return map[partid.TopicPartition]int64{tp("t", 0): 42, tp("t", 1): 45} // u-0 unknown
		},
	}
	s := gather(t, src)
	lag := func(g, topic, p string) map[string]string {
		return map[string]string{"consumergroup": g, "topic": topic, "partition": p}
	}
	if v := mustValue(t, s, "kafka_consumergroup_lag", lag("g", "t", "0")); v != 32 {
		t.Errorf("g t-0 lag %v", v)
	}
	if v := mustValue(t, s, "kafka_consumergroup_lag", lag("g", "t", "1")); v != 0 {
		t.Errorf("g t-1 lag %v (committed past the HW)", v)
	}
	if _, ok := promtext.Value(s, "kafka_consumergroup_lag", lag("g", "u", "0")); ok {
		t.Error("lag for a partition whose HW is unknown")
	}
	if v := mustValue(t, s, "kafka_consumergroup_current_offset", lag("g", "u", "0")); v != 3 {
		t.Errorf("g u-0 offset %v", v)
	}
	if v := mustValue(t, s, "kafka_consumergroup_lag_sum", map[string]string{"consumergroup": "g", "topic": "t"}); v != 32 {
		t.Errorf("g lag sum %v", v)
	}
	if v := mustValue(t, s, "kafka_consumergroup_lag", lag("h", "t", "0")); v != 2 {
		t.Errorf("h lag %v", v)
	}
	for name, want := range map[string]float64{
		"kafka_coordinator_group_groupmetadatamanager_numgroups":       2,
		"kafka_coordinator_group_groupmetadatamanager_numgroupsstable": 1,
		"kafka_coordinator_group_groupmetadatamanager_numgroupsempty":  1,
		"kafka_coordinator_group_groupmetadatamanager_numgroupsdead":   0,
		"kafka_coordinator_group_groupmetadatamanager_numoffsets":      4,
	} {
		if v := mustValue(t, s, name, nil); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	if v := mustValue(t, s, "kafka_consumergroup_members", map[string]string{"consumergroup": "g"}); v != 2 {
		t.Errorf("members %v", v)
	}

	// The JSON view carries the same lag.
	srv := &Server{src: src, col: newCollector(src)}
	rec := httptest.NewRecorder()
	srv.v1Metrics(rec, httptest.NewRequest(http.MethodGet, adminapi.MetricsPath, nil))
	var doc adminapi.Metrics
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Groups) != 2 || doc.Groups[0].Group != "g" || len(doc.Groups[0].Partitions) != 3 {
		t.Fatalf("groups %+v", doc.Groups)
	}
	if p := doc.Groups[0].Partitions[0]; p.Topic != "t" || p.Partition != 0 || p.Lag == nil || *p.Lag != 32 || *p.HighWatermark != 42 {
		t.Fatalf("g t-0 %+v", p)
	}
	if p := doc.Groups[0].Partitions[2]; p.Topic != "u" || p.Lag != nil {
		t.Fatalf("g u-0 %+v", p)
	}
}

// TestV1Metrics: the JSON document's topic counters and request summary.
func TestV1Metrics(t *testing.T) {
	reg := metrics.New()
	reg.Topics.Acquire("a").Appended(3, 300)
	p := reg.Requests.For(1, true)
	for range 100 {
		p.Done(12, &metrics.RequestTimes{Received: time.Unix(100, 0), Resolved: 400 * time.Millisecond}, 400*time.Millisecond)
	}
	src := Source{Metrics: reg}
	srv := &Server{src: src, col: newCollector(src)}
	rec := httptest.NewRecorder()
	srv.v1Metrics(rec, httptest.NewRequest(http.MethodGet, adminapi.MetricsPath, nil))
	var doc adminapi.Metrics
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Topics) != 1 || doc.Topics[0].Topic != "a" || doc.Topics[0].MessagesIn != 3 || doc.AllTopics.BytesIn != 300 {
		t.Fatalf("topics %+v total %+v", doc.Topics, doc.AllTopics)
	}
	if len(doc.Requests) != 1 || doc.Requests[0].Request != "FetchFollower" || doc.Requests[0].Requests != 100 {
		t.Fatalf("requests %+v", doc.Requests)
	}
	if r := doc.Requests[0].RemoteTimeMs; r.Mean != 400 || r.P99 <= 200 || r.P99 > 500 {
		t.Fatalf("remote time %+v", r)
	}
	if !strings.Contains(rec.Body.String(), `"groups": []`) {
		t.Fatalf("groups not an empty list: %s", rec.Body.String())
	}
}

// TestWindow: the base of a windowed figure is the newest sample at least
// the span old, else the oldest.
func TestWindow(t *testing.T) {
	w := newWindow(time.Minute)
	t0 := time.Unix(1000, 0)
	w.add(t0, map[string]float64{"x": 0})
	if b := w.add(t0.Add(10*time.Second), map[string]float64{"x": 1}); !b.at.Equal(t0) {
		t.Fatalf("base %v", b.at)
	}
	w.add(t0.Add(30*time.Second), map[string]float64{"x": 3})
	if b := w.add(t0.Add(75*time.Second), map[string]float64{"x": 7}); !b.at.Equal(t0.Add(10*time.Second)) || b.v["x"] != 1 {
		t.Fatalf("base %v %v, want the sample at 10s", b.at, b.v)
	}
	if b := w.add(t0.Add(75500*time.Millisecond), map[string]float64{"x": 8}); !b.at.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("base %v", b.at)
	}
	if n := len(w.samples); n != 3 { // 10s, 30s, 75s (75.5s is under a second after it)
		t.Fatalf("%d samples kept", n)
	}
}

func TestErrorName(t *testing.T) {
	for code, want := range map[int16]string{0: "NONE", 6: "NOT_LEADER_OR_FOLLOWER", 10: "MESSAGE_TOO_LARGE", -1: "UNKNOWN_SERVER_ERROR", 9999: "UNKNOWN_SERVER_ERROR"} {
		if got := errorName(code); got != want {
			t.Errorf("errorName(%d) = %s, want %s", code, got, want)
		}
	}
}
