package api

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/config"
	"kafgo/broker/metrics"
	"kafgo/broker/record"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// produceServer is an API server over a real replica manager leading
// topic t partition 0 alone (acks=all answers at once), with reg as its
// metrics (nil for none).
func produceServer(tb testing.TB, reg *metrics.Registry) *Server {
	tb.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	logs, err := storage.OpenManager(storage.ManagerConfig{LogDirs: []string{tb.TempDir()}, BrokerID: 1, DefaultLog: storage.DefaultLogConfig(), Logger: logger})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { logs.Shutdown() })
	cache := clusterview.New()
	reps, err := replica.NewManager(replica.Config{BrokerID: 1, Logs: logs, Cache: cache, Logger: logger, Metrics: reg,
		ConfigFor: func(string) replica.PartitionConfig {
			return replica.PartitionConfig{Log: storage.DefaultLogConfig(), MinInsyncReplicas: 1, MaxMessageBytes: 1 << 20}
		}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { reps.Shutdown() })
	cfg, err := config.Parse(map[string]string{"broker.id": "1", "log.dirs": tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	s := New(&Deps{BrokerID: 1, Cache: cache, Replicas: reps, Logger: logger, Metrics: reg, Config: func() *config.Broker { return cfg }})
	lai := kmsg.NewPtrLeaderAndISRRequest()
	lai.Version, lai.ControllerID, lai.ControllerEpoch, lai.BrokerEpoch = 5, 1, 1, -1
	ts := kmsg.NewLeaderAndISRRequestTopicState()
	ts.Topic = "t"
	ps := kmsg.NewLeaderAndISRRequestTopicPartition()
	ps.Partition, ps.Leader, ps.ISR, ps.Replicas = 0, 1, []int32{1}, []int32{1}
	ts.PartitionStates = append(ts.PartitionStates, ps)
	lai.TopicStates = append(lai.TopicStates, ts)
	if code := reps.HandleLeaderAndISR(lai).Topics[0].Partitions[0].ErrorCode; code != 0 {
		tb.Fatalf("LeaderAndIsr: %v", kerr.ErrorForCode(code))
	}
	return s
}

// produceRequest is a Produce v8 of one batch of n 100-byte records to t-0,
// as wire hands it to Serve.
func produceRequest(tb testing.TB, n int, acks int16) *wire.Request {
	tb.Helper()
	bld := record.NewBuilder(0, record.CodecNone)
	for i := range n {
		bld.Append(1_700_000_000_000, nil, fmt.Appendf(make([]byte, 0, 100), "%0100d", i), nil)
	}
	batch, err := bld.Build()
	if err != nil {
		tb.Fatal(err)
	}
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = 8, acks, 30000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = batch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return &wire.Request{Header: wire.RequestHeader{APIKey: 0, APIVersion: 8, CorrelationID: 1, ClientID: kmsg.StringPtr("bench")}, Body: req.AppendTo(nil)}
}

// serveProduce runs one request as wire would: Serve, the Pending, and the
// Sent hook once "written".
func serveProduce(tb testing.TB, s *Server, req *wire.Request) {
	req.Received = time.Now()
	resp := s.Serve(req)()
	if resp.Sent != nil {
		resp.Sent.ResponseSent()
	}
	if len(resp.Body) == 0 {
		tb.Fatal("no produce response")
	}
}

// TestProduceRequestMetrics: a served produce counts once in the request
// metrics, with every phase observed, its NONE error, and its records on
// the topic.
func TestProduceRequestMetrics(t *testing.T) {
	reg := metrics.New()
	s := produceServer(t, reg)
	serveProduce(t, s, produceRequest(t, 7, -1))
	snaps := reg.Requests.Snapshot()
	if len(snaps) != 1 || snaps[0].Name != "Produce" || snaps[0].Versions[8] != 1 || snaps[0].Errors[0] != 1 {
		t.Fatalf("request metrics %+v", snaps)
	}
	r := snaps[0]
	for name, h := range map[string]metrics.HistogramSnapshot{"total": r.TotalTime, "queue": r.RequestQueueTime, "local": r.LocalTime,
		"response queue": r.ResponseQueueTime, "remote": r.RemoteTime, "send": r.ResponseSendTime, "throttle": r.ThrottleTime} {
		if h.Count != 1 {
			t.Errorf("%s time observed %d times", name, h.Count)
		}
	}
	if r.LocalTime.Sum <= 0 || r.TotalTime.Sum < r.LocalTime.Sum {
		t.Errorf("local %v total %v", r.LocalTime.Sum, r.TotalTime.Sum)
	}
	ts, ok := reg.Topics.Lookup("t")
	if !ok || ts.Counts().MessagesIn != 7 || ts.Counts().TotalProduce != 1 {
		t.Fatalf("topic counters %+v", ts.Counts())
	}
}

// BenchmarkProducePath serves produce requests (acks=1, one partition)
// through the API handler, the replica manager and the log, with the
// broker's metrics on and off; the difference is the instrumentation's
// cost per request (and, divided by the records, per record).
func BenchmarkProducePath(b *testing.B) {
	for _, records := range []int{1, 10, 100} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("records=%d/metrics=%v", records, on), func(b *testing.B) {
				var reg *metrics.Registry
				if on {
					reg = metrics.New()
				}
				s := produceServer(b, reg)
				req := produceRequest(b, records, 1)
				b.ReportAllocs()
				for b.Loop() {
					// A copy each time: Serve recycles the request,
					// which empties its Body.
					r := *req
					serveProduce(b, s, &r)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
			})
		}
	}
}

// BenchmarkProduceMetricsHooks is the instrumentation alone, as one
// acks=1 produce of one partition meets it: the request metrics' three
// clock reads, one error tally and the phase histograms, and the topic's
// counters. Its ns/op is the metrics' cost per produce request, whatever
// the records per request.
func BenchmarkProduceMetricsHooks(b *testing.B) {
	s := &Server{d: &Deps{Metrics: metrics.New()}}
	topic := s.d.Metrics.Topics.Acquire("t")
	kreq := kmsg.NewPtrProduceRequest()
	resp := kmsg.NewPtrProduceResponse()
	rt := kmsg.NewProduceResponseTopic()
	rt.Partitions = append(rt.Partitions, kmsg.NewProduceResponseTopicPartition())
	resp.Topics = append(resp.Topics, rt)
	res := Result{Resp: resp}
	wresp := &wire.Response{}
	c := &Call{Header: wire.RequestHeader{APIKey: 0, APIVersion: 8}, Req: kreq, Received: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		s.beginMetrics(c, c.Received, time.Microsecond)
		topic.Appended(10, 1000)
		c.resolving()
		c.resolved(res, wresp).Sent.ResponseSent()
	}
}
