package perf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

var (
	windowRE = regexp.MustCompile(`^(\d+) records sent, (\d+\.\d) records/sec \((\d+\.\d\d) MB/sec\), (\d+\.\d) ms avg latency, (\d+\.\d) ms max latency\.$`)
	totalRE  = regexp.MustCompile(`^(\d+)( steady state)? records sent, (\d+\.\d{6}) records/sec \((\d+\.\d\d) MB/sec\), (\d+\.\d\d) ms avg latency, (\d+\.\d\d) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.$`)
	metricRE = regexp.MustCompile(`^(producer|consumer)[a-z-]*:[a-z-]+:\{client-id=[^}]+\} +: \d+\.\d{3}$`)
)

func cfg(addrs string, props map[string]string) *cliutil.Config {
	c := cliutil.NewConfig()
	c.Merge(props)
	c.Set("bootstrap.servers", addrs)
	return c
}

func endOffset(t *testing.T, addrs, topic string) int64 {
	t.Helper()
	adm := kadm.NewClient(clitest.Client(t, addrs))
	offs, err := adm.ListEndOffsets(clitest.Context(t, 10*time.Second), topic)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	offs.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestProducerLines(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(3, "perf"))
	o := ProducerOptions{Topic: "perf", NumRecords: 600, RecordSize: 100, Throughput: 2000,
		WarmupRecords: 100, ReportInterval: 50 * time.Millisecond, PrintMetrics: true}
	var out, errOut bytes.Buffer
	start := time.Now()
	res, err := RunProducer(clitest.Context(t, 60*time.Second), cfg(addrs, map[string]string{"acks": "1", "linger.ms": "0"}), o, &out, &errOut)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	// 600 records at 2000/s cannot finish in under 250 ms: the throttle
	// waits for each record's due time after the first send.
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("throttled run took only %v", d)
	}
	var windows, windowSum int64
	var totals []string
	var metrics int
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	for _, l := range lines {
		switch {
		case windowRE.MatchString(l):
			m := windowRE.FindStringSubmatch(l)
			windows++
			windowSum += atoi(t, m[1])
			if avg, _ := strconv.ParseFloat(m[4], 64); avg < 0 {
				t.Errorf("negative average in %q", l)
			}
		case totalRE.MatchString(l):
			totals = append(totals, l)
		case metricRE.MatchString(l), l == "", strings.HasPrefix(l, "Metric Name"):
			if metricRE.MatchString(l) {
				metrics++
			}
		default:
			t.Errorf("unexpected line %q", l)
		}
	}
	if windows == 0 || windowSum > 600 {
		t.Errorf("%d window lines adding up to %d records", windows, windowSum)
	}
	if len(totals) != 2 {
		t.Fatalf("want a total and a steady-state line, got %q", totals)
	}
	all := totalRE.FindStringSubmatch(totals[0])
	steady := totalRE.FindStringSubmatch(totals[1])
	if all[1] != "600" || all[2] != "" || steady[1] != "500" || steady[2] != " steady state" {
		t.Fatalf("totals %q / %q", totals[0], totals[1])
	}
	p50, p95, p99, p999 := atoi(t, all[7]), atoi(t, all[8]), atoi(t, all[9]), atoi(t, all[10])
	maxLat, _ := strconv.ParseFloat(all[6], 64)
	if p50 > p95 || p95 > p99 || p99 > p999 || float64(p999) > maxLat {
		t.Errorf("percentiles out of order: %d %d %d %d max %v", p50, p95, p99, p999, maxLat)
	}
	if metrics < 5 {
		t.Errorf("only %d metric lines", metrics)
	}
	if res.Total.Records != 600 || res.Failed != 0 || res.Steady.Records != 500 {
		t.Errorf("result %+v", res)
	}
	if n := endOffset(t, addrs, "perf"); n != 600 {
		t.Fatalf("topic holds %d records, want 600", n)
	}
}

func TestProducerJSONAndPayloads(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "mono", "file"))
	t.Run("json monotonic", func(t *testing.T) {
		var out, errOut bytes.Buffer
		o := ProducerOptions{Topic: "mono", NumRecords: 50, PayloadMonotonic: true, Throughput: -1, JSON: true}
		if _, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, nil), o, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		var j map[string]any
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatalf("output %q is not one JSON object: %v", out.String(), err)
		}
		for _, k := range []string{"records", "records_per_sec", "mb_per_sec", "avg_ms", "max_ms", "p50", "p95", "p99", "p999"} {
			if _, ok := j[k]; !ok {
				t.Errorf("json lacks %q: %s", k, out.String())
			}
		}
		if j["records"] != float64(50) {
			t.Errorf("records %v", j["records"])
		}
		values := readAll(t, addrs, "mono", 50)
		for i := range 50 {
			if values[i] != strconv.Itoa(i) {
				t.Fatalf("record %d value %q, want %d", i, values[i], i)
			}
		}
	})
	t.Run("payload file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "payloads.txt")
		if err := os.WriteFile(path, []byte("alpha|beta||gamma|"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		o := ProducerOptions{Topic: "file", NumRecords: 30, PayloadFile: path, PayloadDelimiter: "|", Throughput: -1}
		if _, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, nil), o, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		if lines[0] != "Reading payloads from: "+path || lines[1] != "Number of messages read: 3" || !totalRE.MatchString(lines[2]) {
			t.Fatalf("output %q", out.String())
		}
		for _, v := range readAll(t, addrs, "file", 30) {
			if v != "alpha" && v != "beta" && v != "gamma" {
				t.Fatalf("value %q not from the file", v)
			}
		}
	})
}

func readAll(t *testing.T, addrs, topic string, n int) []string {
	t.Helper()
	cl := clitest.Client(t, addrs, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := clitest.Context(t, 10*time.Second)
	var out []string
	for len(out) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	if len(out) != n {
		t.Fatalf("read %d of %d records", len(out), n)
	}
	return out
}

// TestProducerTransactions: a transactional run commits a transaction
// every --transaction-records records (and the rest at the end), so that
// a read_committed consumer sees every record; the transactional id
// defaults to Kafka's.
func TestProducerTransactions(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "txn"))
	var out, errOut bytes.Buffer
	o := ProducerOptions{Topic: "txn", NumRecords: 250, PayloadMonotonic: true, Throughput: -1, TransactionRecords: 100, JSON: true}
	res, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, nil), o, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if res.Transactions != 3 || res.Total.Records != 250 {
		t.Fatalf("%d transactions, %d records; want 3 and 250", res.Transactions, res.Total.Records)
	}
	var j map[string]any
	if err := json.Unmarshal(out.Bytes(), &j); err != nil || j["transactions"] != float64(3) {
		t.Fatalf("json %s: %v", out.String(), err)
	}
	cl := clitest.Client(t, addrs, kgo.ConsumeTopics("txn"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx := clitest.Context(t, 10*time.Second)
	n := 0
	for n < 250 && ctx.Err() == nil {
		n += cl.PollFetches(ctx).NumRecords()
	}
	if n != 250 {
		t.Fatalf("read_committed read %d of 250 records", n)
	}
	d, err := kadm.NewClient(clitest.Client(t, addrs)).DescribeTransactions(ctx, DefaultTransactionalID)
	if err != nil {
		t.Fatal(err)
	}
	// Ended: kfake reports Empty after a commit (KIP-890), Kafka
	// CompleteCommit.
	if x, err := d.On(DefaultTransactionalID, nil); err != nil || x.Err != nil || (x.State != "CompleteCommit" && x.State != "Empty") {
		t.Fatalf("%s: %+v %v", DefaultTransactionalID, x, err)
	}
}

func TestProducerFailuresAreCounted(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "small"))
	var out, errOut bytes.Buffer
	// Records over max.request.size fail in the client; the run still
	// prints its summary and then reports the failures.
	o := ProducerOptions{Topic: "small", NumRecords: 5, RecordSize: 4096, Throughput: -1}
	res, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, map[string]string{"max.request.size": "1024"}), o, &out, &errOut)
	if err == nil || res.Failed != 5 || res.Total.Records != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !strings.HasPrefix(out.String(), "0 records sent, ") || strings.Count(errOut.String(), "Error producing record") != 5 {
		t.Fatalf("out %q err %q", out.String(), errOut.String())
	}
}

func TestProducerValidate(t *testing.T) {
	ok := ProducerOptions{Topic: "t", NumRecords: 10, RecordSize: 1, Throughput: -1}
	cases := []struct {
		name string
		edit func(*ProducerOptions)
		want string
	}{
		{"ok", func(*ProducerOptions) {}, ""},
		{"no topic", func(o *ProducerOptions) { o.Topic = "" }, "argument --topic is required"},
		{"zero records", func(o *ProducerOptions) { o.NumRecords = 0 }, "--num-records should be greater than zero"},
		{"no payload", func(o *ProducerOptions) { o.RecordSize = 0 }, "exactly one of the arguments --record-size --payload-file --payload-monotonic is required"},
		{"two payloads", func(o *ProducerOptions) { o.PayloadMonotonic = true }, "exactly one of the arguments --record-size --payload-file --payload-monotonic is required"},
		{"zero throughput", func(o *ProducerOptions) { o.Throughput = 0 }, "--throughput must be a positive number of records per second, or -1 for no limit"},
		{"warmup too big", func(o *ProducerOptions) { o.WarmupRecords = 10 }, "The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records."},
		{"negative txn duration", func(o *ProducerOptions) { o.TransactionDurationMs = -1 }, "--transaction-duration-ms should be greater than zero"},
		{"negative txn records", func(o *ProducerOptions) { o.TransactionRecords = -5 }, "--transaction-records should be greater than zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.edit(&o)
			err := o.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	samples := make([]int32, 0, 1000)
	for i := 999; i >= 0; i-- {
		samples = append(samples, int32(i))
	}
	got := percentiles(samples, 0.5, 0.95, 0.99, 0.999)
	want := []int64{500, 950, 990, 999}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("percentiles %v, want %v", got, want)
		}
	}
	t.Run("sampling keeps at most 500000", func(t *testing.T) {
		s := newProducerStats(1_200_000, time.Hour, nil)
		s.begin(time.Now())
		for range 1_200_000 {
			s.record(1, 1, time.Now())
		}
		if s.sampling != 2 || len(s.latencies) != 600000 && len(s.latencies) > 600001 {
			t.Fatalf("sampling %d kept %d", s.sampling, len(s.latencies))
		}
		if len(s.latencies) > 1_200_000/2+1 {
			t.Fatalf("kept %d samples", len(s.latencies))
		}
	})
}

func TestDateFormat(t *testing.T) {
	ts := time.Date(2023, 7, 12, 15, 17, 10, 576_000_000, time.UTC)
	cases := []struct{ pattern, want string }{
		{DefaultDateFormat, "2023-07-12 15:17:10:576"},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2023-07-12T15:17:10.576Z"},
		{"dd/MMM/yy hh:mm a", "12/Jul/23 03:17 PM"},
		{"EEE, d MMMM yyyy", "Wed, 12 July 2023"},
		{"'It''s' H:m:s", "It's 15:17:10"},
	}
	for _, c := range cases {
		t.Run(c.pattern, func(t *testing.T) {
			df, err := parseDateFormat(c.pattern, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if got := df.format(ts); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	if _, err := parseDateFormat("yyyy-QQ", time.UTC); err == nil {
		t.Fatal("unsupported letters must be refused")
	}
}

var (
	csvRE    = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), (\d+\.\d{4}), ([0-9.]+|NaN|Infinity), (\d+), ([0-9.]+|NaN|Infinity), (\d+), (-?\d+), ([0-9.-]+|NaN|Infinity|-Infinity), ([0-9.-]+|NaN|Infinity|-Infinity)$`)
	num      = `(?:[0-9.-]+|NaN|Infinity|-Infinity)`
	detailRE = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0, (\d+\.\d{4}), ` + num + `, (\d+), ` + num + `, \d+, -?\d+, ` + num + `, ` + num + `$`)
)

func seed(t *testing.T, addrs, topic string, n, size int) {
	t.Helper()
	cl := clitest.Client(t, addrs, kgo.DefaultProduceTopic(topic))
	ctx := clitest.Context(t, 30*time.Second)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte(fmt.Sprintf("k%04d", i)), Value: bytes.Repeat([]byte("v"), size)}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func TestConsumerLines(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "in"))
	seed(t, addrs, "in", 1000, 95) // 5-byte keys: 100 bytes a record
	const wantMB = "0.0954"        // 100000 / 1048576
	run := func(t *testing.T, o ConsumerOptions, group string) (string, ConsumerSummary) {
		t.Helper()
		c := cfg(addrs, nil)
		PrepareConsumerConfig(c, group, 0, false)
		var out, errOut bytes.Buffer
		sum, err := RunConsumer(clitest.Context(t, 60*time.Second), c, o, &out, &errOut)
		if err != nil {
			t.Fatalf("%v: %s", err, errOut.String())
		}
		return out.String(), sum
	}
	t.Run("basic", func(t *testing.T) {
		out, sum := run(t, ConsumerOptions{Topic: "in", Messages: 1000}, "")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 2 || lines[0] != basicHeader {
			t.Fatalf("output %q", out)
		}
		m := csvRE.FindStringSubmatch(lines[1])
		if m == nil {
			t.Fatalf("line %q does not parse", lines[1])
		}
		if m[3] != wantMB || m[5] != "1000" || sum.Bytes != 100000 {
			t.Fatalf("line %q: MB %s msgs %s bytes %d", lines[1], m[3], m[5], sum.Bytes)
		}
		if atoi(t, m[7])+atoi(t, m[8]) < 0 || sum.RebalanceMs < 0 {
			t.Fatalf("rebalance %s fetch %s", m[7], m[8])
		}
	})
	t.Run("fewer than asked: timeout warning", func(t *testing.T) {
		out, sum := run(t, ConsumerOptions{Topic: "in", Messages: 1500, Timeout: clitest.RecordWait, HideHeader: true}, "")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		// The gap clock starts before the group join, so the timeout must
		// outlast a join on a loaded machine for all 1000 records to arrive.
		want := fmt.Sprintf("WARNING: Exiting before consuming the expected number of messages: timeout (%d ms) exceeded.", clitest.RecordWait.Milliseconds()) + " You can use the --timeout option to increase the timeout."
		if len(lines) != 2 || lines[0] != want || !csvRE.MatchString(lines[1]) || !sum.TimedOut || sum.Messages != 1000 {
			t.Fatalf("output %q", out)
		}
	})
	t.Run("detailed", func(t *testing.T) {
		out, sum := run(t, ConsumerOptions{Include: "i.", Messages: 1000, ShowDetailedStats: true, ReportingInterval: time.Nanosecond}, "perf-detailed")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if lines[0] != detailedHeader || len(lines) < 2 {
			t.Fatalf("output %q", out)
		}
		var last int64
		for _, l := range lines[1:] {
			m := detailRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("line %q does not parse", l)
			}
			n := atoi(t, m[2])
			if n < last || n > 1000 {
				t.Fatalf("progress went from %d to %d", last, n)
			}
			last = n
		}
		if sum.Messages != 1000 {
			t.Fatalf("consumed %d", sum.Messages)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _ := run(t, ConsumerOptions{Topic: "in", Messages: 1000, JSON: true, PrintMetrics: true}, "")
		var j ConsumerSummary
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if j.Messages != 1000 || j.Bytes != 100000 || j.Metrics["consumer-fetch-manager-metrics:records-consumed-total:{client-id=perf-consumer-client}"] < 1000 {
			t.Fatalf("json %+v", j)
		}
	})
}

func TestConsumerValidate(t *testing.T) {
	cases := []struct {
		o    ConsumerOptions
		want string
	}{
		{ConsumerOptions{Messages: 1}, "Exactly one of the options --topic or --include must be specified."},
		{ConsumerOptions{Topic: "a", Include: "b", Messages: 1}, "Exactly one of the options --topic or --include must be specified."},
		{ConsumerOptions{Topic: "a"}, `Missing required argument "[messages]"`},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if err := c.o.Validate(); err == nil || err.Error() != c.want {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestPrintMetricsLayout(t *testing.T) {
	var b bytes.Buffer
	printMetrics(&b, map[string]float64{"g:b-name:{client-id=c}": 2, "g:a:{client-id=c}": 1.23456})
	// The name column is as wide as the longest name (22 here).
	want := "\nMetric Name              Value\ng:a:{client-id=c}      : 1.235\ng:b-name:{client-id=c} : 2.000\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// TestMissingTopic: the perf producer lets the broker create a missing
// topic, as Kafka's does, or says that it does not exist; the perf
// consumer of a missing topic warns before its timeout warning.
func TestMissingTopic(t *testing.T) {
	o := ProducerOptions{Topic: "fresh", NumRecords: 3, RecordSize: 10, Throughput: -1}
	t.Run("auto-created", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
		var out, errOut bytes.Buffer
		res, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, nil), o, &out, &errOut)
		if err != nil || res.Total.Records != 3 || endOffset(t, addrs, "fresh") != 3 {
			t.Fatalf("res %+v err %v stderr %q", res, err, errOut.String())
		}
	})
	t.Run("not created", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
		var out, errOut bytes.Buffer
		res, err := RunProducer(clitest.Context(t, 30*time.Second), cfg(addrs, nil), o, &out, &errOut)
		if err == nil || res.Failed != 3 || !strings.Contains(err.Error(), "topic fresh does not exist and the broker did not create it") {
			t.Fatalf("res %+v err %v", res, err)
		}
	})
	t.Run("consumer warns", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
		c := cfg(addrs, nil)
		PrepareConsumerConfig(c, "", 0, false)
		var out, errOut bytes.Buffer
		sum, err := RunConsumer(clitest.Context(t, 30*time.Second), c, ConsumerOptions{Topic: "nope", Messages: 1, Timeout: 300 * time.Millisecond}, &out, &errOut)
		if err != nil || !sum.TimedOut {
			t.Fatalf("sum %+v err %v", sum, err)
		}
		if want := "WARN Error while fetching metadata: {nope=UNKNOWN_TOPIC_OR_PARTITION}: topic nope does not exist\n"; errOut.String() != want {
			t.Fatalf("stderr %q, want %q", errOut.String(), want)
		}
	})
}
