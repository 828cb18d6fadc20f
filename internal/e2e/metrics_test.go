package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/promtext"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// scrapeMetrics reads a broker's /metrics (200 only when every series is
// consistent).
func scrapeMetrics(t *testing.T, b *testcluster.Broker) []promtext.Sample {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + b.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatalf("scraping broker %d: %v", b.ID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("broker %d /metrics: %s", b.ID, resp.Status)
	}
	s, err := promtext.Parse(resp.Body)
	if err != nil {
		t.Fatalf("broker %d: %v", b.ID, err)
	}
	return s
}

// clusterSum adds a series over the running brokers.
func clusterSum(t *testing.T, c *testcluster.Cluster, name string, labels map[string]string) float64 {
	t.Helper()
	var sum float64
	for _, b := range c.Brokers() {
		if b.Running() {
			sum += promtext.Sum(scrapeMetrics(t, b), name, labels)
		}
	}
	return sum
}

// dashboardMetrics returns every metric name the Grafana dashboard's
// queries use: panel targets and template variable queries.
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "grafana", "kafgo-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	names := map[string]bool{}
	exprs := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if tg.Expr == "" {
				t.Fatalf("panel %q has a target without an expression", p.Title)
			}
			exprs++
			used := promtext.MetricNames(tg.Expr)
			if len(used) == 0 {
				t.Fatalf("panel %q: no metric in %q", p.Title, tg.Expr)
			}
			for _, n := range used {
				names[n] = true
			}
		}
	}
	labelValues := regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(map[string]any)["query"].(string)
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			t.Fatalf("template query %q is not label_values(metric, label)", q)
		}
		names[m[1]] = true
	}
	if exprs < 40 {
		t.Fatalf("only %d expressions in the dashboard", exprs)
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestMetricsCluster runs a 3-broker cluster through produce, consume,
// group commits and client quotas, then checks Kafka's metrics across the
// brokers: exactly one active controller, consumer lag from the group's
// coordinator only, every metric the Grafana dashboard uses exported, and
// under-replicated partitions once a follower is killed with SIGKILL.
func TestMetricsCluster(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 3, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, "metered"); err != nil {
		t.Fatal(err)
	}
	// Generous quotas of every type, so each quota family has a sensor.
	setClientQuota(t, ctx, adm, "meter", "producer_byte_rate", 100*quotaMiB, false)
	setClientQuota(t, ctx, adm, "meter", "consumer_byte_rate", 100*quotaMiB, false)
	setClientQuota(t, ctx, adm, "meter", "request_percentage", 1000, false)

	producer := c.Client(kgo.ClientID("meter"), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	defer producer.Close()
	const n = 60
	for i := range n {
		if err := producer.ProduceSync(ctx, &kgo.Record{Topic: "metered", Partition: int32(i % 3), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	// A group consumes everything (Stable while it runs) and another
	// commits partition 0 at 5 (lag 15).
	consumer := c.Client(kgo.ClientID("meter"), kgo.ConsumerGroup("readers"), kgo.ConsumeTopics("metered"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer consumer.Close()
	for got := 0; got < n; {
		fs := consumer.PollRecords(ctx, n)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		got += fs.NumRecords()
	}
	if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	var offsets kadm.Offsets
	offsets.AddOffset("metered", 0, 5, -1)
	if resp, err := adm.CommitOffsets(ctx, "laggards", offsets); err != nil || resp.Error() != nil {
		t.Fatalf("commit: %v %v", err, resp.Error())
	}

	if v := clusterSum(t, c, "kafka_controller_kafkacontroller_activecontrollercount", nil); v != 1 {
		t.Fatalf("ActiveControllerCount sums to %v over the brokers", v)
	}
	if v := clusterSum(t, c, "kafka_server_brokertopicmetrics_messagesin_total", map[string]string{"topic": "metered"}); v != n {
		t.Fatalf("MessagesIn{metered} sums to %v, want %d", v, n)
	}
	testwait.Until(t, 30*time.Second, "followers' replication bytes counted", func() bool {
		return clusterSum(t, c, "kafka_server_brokertopicmetrics_replicationbytesin_total", map[string]string{}) > 0
	})
	lag := map[string]string{"consumergroup": "laggards", "topic": "metered", "partition": "0"}
	var reporting int
	for _, b := range c.Brokers() {
		if len(promtext.Find(scrapeMetrics(t, b), "kafka_consumergroup_lag", lag)) > 0 {
			reporting++
		}
	}
	if v := clusterSum(t, c, "kafka_consumergroup_lag", lag); reporting != 1 || v != n/3-5 {
		t.Fatalf("lag of laggards on metered-0: %v from %d brokers, want %d from one (the coordinator)", v, reporting, n/3-5)
	}

	// Every metric the dashboard names is exported by some broker.
	exported := map[string]bool{}
	for _, b := range c.Brokers() {
		for _, s := range scrapeMetrics(t, b) {
			exported[s.Name] = true
		}
	}
	var missing []string
	for _, name := range dashboardMetrics(t) {
		if !exported[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the dashboard uses metrics no broker exports: %v", missing)
	}

	// SIGKILL a broker other than the controller: its replicas leave the
	// ISRs, so the surviving leaders report under-replicated partitions;
	// none is offline (RF 3) and still one controller.
	var victim *testcluster.Broker
	for _, b := range c.Brokers() {
		if promtext.Sum(scrapeMetrics(t, b), "kafka_controller_kafkacontroller_activecontrollercount", nil) == 0 {
			victim = b
			break
		}
	}
	victim.Kill()
	testwait.Until(t, 60*time.Second, "under-replicated partitions after the kill", func() bool {
		return clusterSum(t, c, "kafka_server_replicamanager_underreplicatedpartitions", nil) > 0
	})
	if v := clusterSum(t, c, "kafka_controller_kafkacontroller_offlinepartitionscount", nil); v != 0 {
		t.Fatalf("OfflinePartitionsCount %v with RF 3 and one broker down", v)
	}
	if v := clusterSum(t, c, "kafka_controller_kafkacontroller_activecontrollercount", nil); v != 1 {
		t.Fatalf("ActiveControllerCount sums to %v after the kill", v)
	}
}
