package admin

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"kafgo/broker/clientquota"
	"kafgo/internal/adminapi"
)

func quotaManager(t *testing.T) *clientquota.Manager {
	t.Helper()
	// A fixed clock: rates are measured over elapsed time, which must not
	// depend on how fast the test runs.
	at := time.Now()
	q := clientquota.NewManager(clientquota.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: func() time.Time { return at }})
	q.Update(clientquota.Entity{User: clientquota.NamedPart("CN=a b")}, map[string]string{clientquota.ProducerByteRate: "1000"})
	q.Update(clientquota.Entity{Client: clientquota.NamedPart("c1")}, map[string]string{clientquota.ConsumerByteRate: "2000"})
	if d := q.RecordAndThrottle(clientquota.Produce, "CN=a b", "p", 20_000); d == 0 {
		t.Fatal("not throttled")
	}
	q.Throttled(clientquota.Produce, "CN=a b", "p", time.Hour)
	q.RecordAndThrottle(clientquota.Fetch, "bob", "c1", 100)
	return q
}

// TestCollectClientQuotas: Kafka's per-entity quota metrics under the JMX
// exporter's names, labelled by the sensor's tags (the user sanitized),
// with the limit beside them.
func TestCollectClientQuotas(t *testing.T) {
	ch := make(chan prometheus.Metric, 64)
	collectQuotas(ch, quotaManager(t))
	collectQuotas(ch, nil)
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, l := range pb.Label {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		name := m.Desc().String()
		name = name[strings.Index(name, `"`)+1:]
		name = name[:strings.Index(name, `"`)]
		got[name+"{"+strings.Join(labels, ",")+"}"] = pb.GetGauge().GetValue()
	}
	// One user sensor (produce) and one client sensor (fetch) exist; the
	// user's produce and the client's fetch were measured.
	want := map[string]float64{
		"kafka_server_produce_byte_rate{client_id=,user=CN%3Da%20b}":        2000,
		"kafka_server_produce_throttle_time{client_id=,user=CN%3Da%20b}":    float64(time.Hour.Milliseconds()),
		"kafgo_client_quota_limit{client_id=,type=produce,user=CN%3Da%20b}": 1000,
		"kafka_server_fetch_byte_rate{client_id=c1,user=}":                  10,
		"kafka_server_fetch_throttle_time{client_id=c1,user=}":              0,
		"kafgo_client_quota_limit{client_id=c1,type=fetch,user=}":           2000,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
}

// TestClientQuotasJSON: /v1/quotas lists the sensors with the throttled
// flag the TUI shows.
func TestClientQuotasJSON(t *testing.T) {
	s := &Server{src: Source{ClientQuotas: quotaManager(t)}}
	rec := httptest.NewRecorder()
	s.clientQuotas(rec, httptest.NewRequest(http.MethodGet, adminapi.QuotasPath, nil))
	var got []adminapi.ClientQuota
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d entries: %+v", len(got), got)
	}
	p, f := got[0], got[1]
	if p.Type != "produce" || p.User != "CN=a b" || p.ClientID != "" || !p.Throttled || p.Limit == nil || *p.Limit != 1000 || p.Rate != 2000 {
		t.Errorf("produce entry %+v", p)
	}
	if f.Type != "fetch" || f.ClientID != "c1" || f.Throttled || f.ThrottledUntilMs != 0 || f.Limit == nil || *f.Limit != 2000 {
		t.Errorf("fetch entry %+v", f)
	}
	empty := httptest.NewRecorder()
	(&Server{}).clientQuotas(empty, httptest.NewRequest(http.MethodGet, adminapi.QuotasPath, nil))
	if strings.TrimSpace(empty.Body.String()) != "[]" {
		t.Errorf("without quotas: %s", empty.Body.String())
	}
}
