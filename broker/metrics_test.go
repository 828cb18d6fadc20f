package broker

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/promtext"
	"kafgo/internal/testing/testwait"
)

// scrape reads the broker's /metrics; the endpoint answers 200 only when
// every series is consistent (the registry checks them).
func scrape(t *testing.T, b *Broker) []promtext.Sample {
	t.Helper()
	cl := &http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get("http://" + b.adminHTTP.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	s, err := promtext.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func value(t *testing.T, s []promtext.Sample, name string, labels map[string]string) float64 {
	t.Helper()
	v, ok := promtext.Value(s, name, labels)
	if !ok {
		t.Fatalf("no series %s%v", name, labels)
	}
	return v
}

// TestKafkaMetrics drives one broker through produce (good, refused by
// validation, too large), a consumer read and a group commit, and checks
// that Kafka's metric families on /metrics move as Kafka's would.
func TestKafkaMetrics(t *testing.T) {
	b, _ := startTestBroker(t, testConfig(t, t.TempDir(), map[string]string{"admin.listener": "127.0.0.1:0", "offsets.topic.num.partitions": "1"}))
	ctx := testCtx(t)
	cl := client(t, b, kgo.RecordRetries(0), kgo.ProducerLinger(0))
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": kadm.StringPtr("compact")}, "compacted"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("2000")}, "small"); err != nil {
		t.Fatal(err)
	}
	topic := func(name string) map[string]string { return map[string]string{"topic": name} }

	const n = 25
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: "t", Value: []byte(fmt.Sprintf("value-%02d", i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	s := scrape(t, b)
	if v := value(t, s, "kafka_server_brokertopicmetrics_messagesin_total", topic("t")); v != n {
		t.Fatalf("MessagesIn{t} = %v, want %d", v, n)
	}
	bytesIn := value(t, s, "kafka_server_brokertopicmetrics_bytesin_total", topic("t"))
	if bytesIn <= n*8 || value(t, s, "kafka_server_brokertopicmetrics_bytesin_total", nil) < bytesIn {
		t.Fatalf("BytesIn{t} = %v, total %v", bytesIn, value(t, s, "kafka_server_brokertopicmetrics_bytesin_total", nil))
	}
	if v := value(t, s, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic("t")); v != 0 {
		t.Fatalf("FailedProduceRequests{t} = %v", v)
	}

	// A keyless record on a compacted topic is INVALID_RECORD: a failed
	// produce to Kafka. A batch over max.message.bytes is rejected bytes.
	err := cl.ProduceSync(ctx, &kgo.Record{Topic: "compacted", Value: []byte("no key")}).FirstErr()
	if !errors.Is(err, kerr.InvalidRecord) {
		t.Fatalf("keyless record on a compacted topic: %v", err)
	}
	big := make([]byte, 5000)
	for i := range big {
		big[i] = byte(rand.Uint32())
	} // incompressible: the batch stays over the limit
	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "small", Value: big}).FirstErr()
	if !errors.Is(err, kerr.MessageTooLarge) {
		t.Fatalf("record over max.message.bytes: %v", err)
	}
	s = scrape(t, b)
	if v := value(t, s, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic("compacted")); v != 1 {
		t.Fatalf("FailedProduceRequests{compacted} = %v, want 1", v)
	}
	if v := value(t, s, "kafka_server_brokertopicmetrics_bytesrejected_total", topic("small")); v < 5000 {
		t.Fatalf("BytesRejected{small} = %v", v)
	}
	if v := value(t, s, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic("small")); v != 0 {
		t.Fatalf("a too large batch counted as a failed produce: %v", v)
	}
	if v := value(t, s, "kafka_network_requestmetrics_errors_total", map[string]string{"request": "Produce", "error": "INVALID_RECORD"}); v != 1 {
		t.Fatalf("ErrorsPerSec{Produce,INVALID_RECORD} = %v", v)
	}
	if v := value(t, s, "kafka_network_requestmetrics_errors_total", map[string]string{"request": "Produce", "error": "MESSAGE_TOO_LARGE"}); v != 1 {
		t.Fatalf("ErrorsPerSec{Produce,MESSAGE_TOO_LARGE} = %v", v)
	}
	// A request is counted once its answer is written, which may be just
	// after the client read it: wait for the third.
	testwait.Until(t, 10*time.Second, "three Produce requests counted", func() bool {
		s = scrape(t, b)
		return promtext.Sum(s, "kafka_network_requestmetrics_requests_total", map[string]string{"request": "Produce"}) >= 3
	})
	produces := promtext.Sum(s, "kafka_network_requestmetrics_requests_total", map[string]string{"request": "Produce"})
	if produces < 3 || value(t, s, "kafka_network_requestmetrics_totaltimems_count", map[string]string{"request": "Produce"}) != produces {
		t.Fatalf("Produce requests %v, TotalTimeMs count %v", produces, value(t, s, "kafka_network_requestmetrics_totaltimems_count", map[string]string{"request": "Produce"}))
	}
	if v := value(t, s, "kafka_network_requestmetrics_localtimems_bucket", map[string]string{"request": "Produce", "le": "+Inf"}); v != produces {
		t.Fatalf("LocalTimeMs +Inf bucket %v, want %v", v, produces)
	}

	// A consumer reads the topic; a group commits 10 of the 25.
	consumer := client(t, b, kgo.FetchMaxWait(100*time.Millisecond), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"t": {0: kgo.NewOffset().AtStart()}}))
	got := 0
	for got < n {
		fs := consumer.PollRecords(ctx, n)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		got += fs.NumRecords()
	}
	var offsets kadm.Offsets
	offsets.AddOffset("t", 0, 10, -1)
	if resp, err := adm.CommitOffsets(ctx, "readers", offsets); err != nil || resp.Error() != nil {
		t.Fatalf("commit: %v %v", err, resp.Error())
	}
	s = scrape(t, b)
	if v := value(t, s, "kafka_server_brokertopicmetrics_bytesout_total", topic("t")); v < bytesIn {
		t.Fatalf("BytesOut{t} = %v after reading %v bytes in", v, bytesIn)
	}
	if v := promtext.Sum(s, "kafka_network_requestmetrics_requests_total", map[string]string{"request": "FetchConsumer"}); v < 1 {
		t.Fatal("no FetchConsumer requests")
	}
	lag := map[string]string{"consumergroup": "readers", "topic": "t", "partition": "0"}
	if v := value(t, s, "kafka_consumergroup_lag", lag); v != n-10 {
		t.Fatalf("lag %v, want %d", v, n-10)
	}
	if v := value(t, s, "kafka_consumergroup_current_offset", lag); v != 10 {
		t.Fatalf("current offset %v", v)
	}
	if v := value(t, s, "kafka_coordinator_group_groupmetadatamanager_numgroupsempty", nil); v != 1 {
		t.Fatalf("NumGroupsEmpty %v", v)
	}
	if v := value(t, s, "kafka_coordinator_group_groupmetadatamanager_numoffsets", nil); v != 1 {
		t.Fatalf("NumOffsets %v", v)
	}
	if v := value(t, s, "kafka_log_log_logendoffset", map[string]string{"topic": "t", "partition": "0"}); v != n {
		t.Fatalf("LogEndOffset %v", v)
	}
	if v := value(t, s, "kafka_controller_kafkacontroller_activecontrollercount", nil); v != 1 {
		t.Fatalf("ActiveControllerCount %v", v)
	}
	// t, compacted, small and __consumer_offsets, one partition each.
	if v := value(t, s, "kafka_controller_kafkacontroller_globalpartitioncount", nil); v != 4 {
		t.Fatalf("GlobalPartitionCount %v", v)
	}
	if lead, parts := value(t, s, "kafka_server_replicamanager_leadercount", nil), value(t, s, "kafka_server_replicamanager_partitioncount", nil); lead != 4 || parts != 4 {
		t.Fatalf("LeaderCount %v PartitionCount %v", lead, parts)
	}
	// min.insync.replicas 1 = ISR 1 on every partition.
	if v := value(t, s, "kafka_server_replicamanager_atminisrpartitioncount", nil); v != 4 {
		t.Fatalf("AtMinIsrPartitionCount %v", v)
	}
	if v := value(t, s, "kafka_server_socket_server_metrics_connection_count", map[string]string{"listener": "PLAINTEXT"}); v < 2 {
		t.Fatalf("connection_count %v", v)
	}
	for _, idle := range []string{"kafka_network_socketserver_networkprocessoravgidle_percent", "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent"} {
		if v := value(t, s, idle, nil); v < 0 || v > 1 {
			t.Fatalf("%s = %v", idle, v)
		}
	}

	// The log flush timer: a flush with data (flush.messages is not set,
	// so flush explicitly as the scheduler would).
	before := b.metrics.LogFlush.Count()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "flushed"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "flushed", Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, p := range b.replicas.Partitions() {
		if err := p.Log().Flush(); err != nil {
			t.Fatal(err)
		}
	}
	testwait.Until(t, waitTimeout, "flush observed", func() bool {
		return value(t, scrape(t, b), "kafka_log_logflushstats_logflushrateandtimems_count", nil) > float64(before)
	})
}
