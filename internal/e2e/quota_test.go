package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/adminapi"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

const quotaMiB = 1 << 20

// throttleCounter is a kgo hook counting throttled responses per broker.
type throttleCounter struct {
	mu      sync.Mutex
	brokers map[int32]int
	total   atomic.Int64
}

func (c *throttleCounter) OnBrokerThrottle(meta kgo.BrokerMetadata, d time.Duration, _ bool) {
	if d <= 0 {
		return
	}
	c.total.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.brokers == nil {
		c.brokers = map[int32]int{}
	}
	c.brokers[meta.NodeID]++
}

func (c *throttleCounter) by(id int32) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokers[id]
}

// clientQuotas reads a broker's /v1/quotas.
func clientQuotas(t *testing.T, b *testcluster.Broker) []adminapi.ClientQuota {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + b.AdminAddr() + adminapi.QuotasPath)
	if err != nil {
		t.Fatalf("broker %d: %v", b.ID, err)
	}
	defer resp.Body.Close()
	var q []adminapi.ClientQuota
	if err := json.NewDecoder(resp.Body).Decode(&q); err != nil {
		t.Fatalf("broker %d: decoding %s: %v", b.ID, adminapi.QuotasPath, err)
	}
	return q
}

// appliedLimit is the limit a broker applies to a client id's sensor of
// a quota type: -1 when the sensor has no limit, -2 when there is no
// sensor yet.
func appliedLimit(t *testing.T, b *testcluster.Broker, typ, clientID string) float64 {
	for _, q := range clientQuotas(t, b) {
		if q.Type == typ && q.ClientID == clientID {
			if q.Limit == nil {
				return -1
			}
			return *q.Limit
		}
	}
	return -2
}

func setClientQuota(t *testing.T, ctx context.Context, adm *kadm.Client, clientID, key string, value float64, remove bool) {
	t.Helper()
	name := clientID
	res, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "client-id", Name: &name}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: key, Value: value, Remove: remove}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("altering %s of %s: %v %s", key, clientID, r.Err, r.ErrMessage)
		}
	}
}

// measureQuota runs a client limited to 1 MiB/s of quota type typ (run
// adds the value bytes it gets acknowledged or consumed) and checks it
// averages 0.8x to 1.25x of the quota between 1 s and 11 s after it
// starts, that responses carried throttle_time_ms, and that the broker's
// throttle-time metric of the client id moved.
func measureQuota(t *testing.T, ctx context.Context, b *testcluster.Broker, typ, clientID string, hook *throttleCounter, run func(context.Context, *atomic.Int64)) {
	t.Helper()
	var n atomic.Int64
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	go run(rctx, &n)
	time.Sleep(time.Until(start.Add(time.Second))) // the sampling points, not a wait for a condition
	first := n.Load()
	time.Sleep(time.Until(start.Add(11 * time.Second)))
	got := float64(n.Load()-first) / 10 / quotaMiB
	stop()
	t.Logf("%s limited to 1 MiB/s: %.3fx over 10 s, %d throttled responses", clientID, got, hook.total.Load())
	if got < 0.8 || got > 1.25 {
		t.Errorf("%s averaged %.3fx its quota over 10 s, want 0.8x to 1.25x", clientID, got)
	}
	if hook.total.Load() == 0 {
		t.Errorf("no %s response carried throttle_time_ms", typ)
	}
	series := fmt.Sprintf(`kafka_server_%s_throttle_time{client_id=%q,user=""}`, typ, clientID)
	if v := metricValue(t, b, series); v <= 0 {
		t.Errorf("%s = %v", series, v)
	}
}

// TestClientQuotas runs producers and consumers against a broker with
// client-id quotas of 1 MiB/s set through AlterClientQuotas. The broker
// keeps Kafka's quota arithmetic but a two-sample quota window
// (quota.window.num=2): with Kafka's default of 11 samples a fresh client
// gets ten seconds of quota at once and its rate over any 10 s follows an
// 11 s sawtooth (clientquota's TestSaturatingClientDefaultWindow), so a
// 10 s measurement says little; with two samples it is the quota within
// Kafka's tolerance. Each limited client averages 0.8x to 1.25x of its
// quota over 10 s after its first second and sees throttle_time_ms; a
// client id without a quota on the same broker is never throttled; and
// once the quota is removed, the same client id moves well past it
// without a throttle.
func TestClientQuotas(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"quota.window.num": "2"}})
	b := c.Broker(1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	adm := c.Admin()
	defer adm.Close()
	for _, topic := range []string{"pq", "cq"} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	setClientQuota(t, ctx, adm, "limited-producer", "producer_byte_rate", quotaMiB, false)
	setClientQuota(t, ctx, adm, "limited-consumer", "consumer_byte_rate", quotaMiB, false)
	opts := func(clientID string, hook *throttleCounter) []kgo.Opt {
		return []kgo.Opt{kgo.ClientID(clientID), kgo.WithHooks(hook), kgo.DefaultProduceTopic("pq"),
			kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(64 << 10), kgo.ProducerLinger(0)}
	}

	t.Run("producer", func(t *testing.T) {
		var hook throttleCounter
		cl := c.Client(opts("limited-producer", &hook)...)
		defer cl.Close()
		// The quota is applied once the broker has followed the change.
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("probe")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		testwait.For(t, 10*time.Second, "the producer quota applied", func() (bool, string) {
			l := appliedLimit(t, b, "produce", "limited-producer")
			return l == quotaMiB, fmt.Sprintf("limit %v", l)
		})
		measureQuota(t, ctx, b, "produce", "limited-producer", &hook, func(ctx context.Context, acked *atomic.Int64) {
			value := make([]byte, 16<<10)
			for ctx.Err() == nil {
				cl.Produce(ctx, &kgo.Record{Value: value}, func(r *kgo.Record, err error) {
					if err == nil {
						acked.Add(int64(len(r.Value)))
					}
				})
			}
		})
	})

	t.Run("unlimited client id", func(t *testing.T) {
		var hook throttleCounter
		cl := c.Client(opts("free", &hook)...)
		defer cl.Close()
		produceMiB(t, ctx, cl, 16)
		if n := hook.total.Load(); n != 0 {
			t.Fatalf("a client id without a quota was throttled %d times", n)
		}
	})

	t.Run("consumer", func(t *testing.T) {
		loader := c.Client(kgo.ClientID("loader"), kgo.DefaultProduceTopic("cq"), kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(64<<10))
		produceMiB(t, ctx, loader, 20)
		loader.Close()
		var hook throttleCounter
		// Batches and fetches of 64 KiB, as the producer's: a fetch of a
		// whole window's quota (1 MiB here) would pass only once per two
		// windows, and a fetch returns at least one whole batch.
		cl := c.Client(kgo.ClientID("limited-consumer"), kgo.WithHooks(&hook), kgo.ConsumeTopics("cq"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchMaxBytes(64<<10), kgo.FetchMaxPartitionBytes(64<<10))
		defer cl.Close()
		measureQuota(t, ctx, b, "fetch", "limited-consumer", &hook, func(ctx context.Context, consumed *atomic.Int64) {
			for ctx.Err() == nil {
				cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { consumed.Add(int64(len(r.Value))) })
			}
		})
	})

	t.Run("request quota", func(t *testing.T) {
		setClientQuota(t, ctx, adm, "chatty", "request_percentage", 0.0001, false)
		cl := c.Client(kgo.ClientID("chatty"))
		defer cl.Close()
		testwait.For(t, 30*time.Second, "a Metadata response with throttle_time_ms", func() (bool, string) {
			resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
			if err != nil {
				return false, err.Error()
			}
			// The request quota's throttle is bounded by one window.
			if resp.ThrottleMillis > 1000 {
				t.Fatalf("throttle_time_ms %d over the 1 s bound", resp.ThrottleMillis)
			}
			return resp.ThrottleMillis > 0, fmt.Sprintf("throttle_time_ms %d", resp.ThrottleMillis)
		})
	})

	t.Run("validation", func(t *testing.T) {
		name := "c"
		empty := ""
		res, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{
			{Entity: []kadm.ClientQuotaEntityComponent{{Type: "client-id", Name: &name}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1.5}}},
			{Entity: []kadm.ClientQuotaEntityComponent{{Type: "client-id", Name: &name}}, Ops: []kadm.AlterClientQuotaOp{{Key: "retention.ms", Value: 1}}},
			{Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: &empty}}, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1}}},
			{Entity: nil, Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			if !errors.Is(r.Err, kerr.InvalidRequest) {
				t.Errorf("%+v: error %v, want INVALID_REQUEST", r.Entity, r.Err)
			}
			got = append(got, r.ErrMessage)
		}
		slices.Sort(got)
		want := []string{
			"Configuration producer_byte_rate must be a LONG value",
			"Empty user not supported",
			"Invalid configuration key retention.ms",
			"Invalid empty client quota entity",
		}
		if !slices.Equal(got, want) {
			t.Fatalf("AlterClientQuotas messages %q, want %q", got, want)
		}
	})

	t.Run("quota removed", func(t *testing.T) {
		setClientQuota(t, ctx, adm, "limited-producer", "producer_byte_rate", 0, true)
		testwait.For(t, 10*time.Second, "the producer quota lifted", func() (bool, string) {
			l := appliedLimit(t, b, "produce", "limited-producer")
			return l == -1, fmt.Sprintf("limit %v", l)
		})
		var hook throttleCounter
		cl := c.Client(opts("limited-producer", &hook)...)
		defer cl.Close()
		// 16 MiB is far past what 1 MiB/s lets through at once (a window
		// of quota, 1 MiB, and then a second of throttle per MiB).
		produceMiB(t, ctx, cl, 16)
		if n := hook.total.Load(); n != 0 {
			t.Fatalf("throttled %d times after the quota was removed", n)
		}
	})
}

// produceMiB produces n MiB in 16 KiB records and waits for them all.
func produceMiB(t *testing.T, ctx context.Context, cl *kgo.Client, n int) {
	t.Helper()
	value := make([]byte, 16<<10)
	var wg sync.WaitGroup
	var failed atomic.Value
	for i := 0; i < n*64; i++ {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Store(err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// TestClientQuotasZooKeeper: on a 3-broker ZooKeeper cluster quotas set
// with kafgo configs through one broker (a client id, and a user's client
// id named with both entity flags) and one set with AlterClientQuotas
// through another are described at once by a third (they are read from
// ZooKeeper), and every broker applies them (from the /config/changes
// notifications) and throttles the clients they name.
func TestClientQuotasZooKeeper(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	addr := func(id int32) string { return "--bootstrap-server=" + c.Broker(id).Addr() }
	const limit = 102400 // 100 KiB/s: Kafka's default window lets 1 MiB through at once

	out := kafgo(t, "", "configs", addr(1), "--alter", "--entity-type", "clients", "--entity-name", "tool-set", "--add-config", "producer_byte_rate=102400")
	if out != "Completed updating config for client tool-set.\n" {
		t.Fatalf("configs --alter: %q", out)
	}
	if out := kafgo(t, "", "configs", addr(2), "--describe", "--entity-type", "clients", "--entity-name", "tool-set"); out != "Quota configs for client-id 'tool-set' are producer_byte_rate=102400.0\n" {
		t.Fatalf("describe through broker 2: %q", out)
	}
	adm3 := kadm.NewClient(c.Client(kgo.SeedBrokers(c.Broker(3).Addr())))
	defer adm3.Close()
	setClientQuota(t, ctx, adm3, "kadm-set", "producer_byte_rate", limit, false)
	adm1 := kadm.NewClient(c.Client(kgo.SeedBrokers(c.Broker(1).Addr())))
	defer adm1.Close()
	name := "kadm-set"
	described, err := adm1.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchName: &name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != 1 || len(described[0].Values) != 1 || described[0].Values[0].Key != "producer_byte_rate" || described[0].Values[0].Value != limit {
		t.Fatalf("DescribeClientQuotas through broker 1: %+v", described)
	}
	if out := kafgo(t, "", "configs", addr(3), "--describe", "--entity-type", "clients"); out !=
		"Quota configs for client-id 'kadm-set' are producer_byte_rate=102400.0\nQuota configs for client-id 'tool-set' are producer_byte_rate=102400.0\n" {
		t.Fatalf("describe every client through broker 3: %q", out)
	}

	// A user's client id, named with both entity flags.
	out = kafgo(t, "", "configs", addr(1), "--alter", "--entity-type", "users", "--entity-name", "ANONYMOUS", "--entity-type", "clients", "--entity-name", "combo",
		"--add-config", "producer_byte_rate=102400,request_percentage=200")
	if out != "Completed updating config for user ANONYMOUS.\n" {
		t.Fatalf("configs --alter of a user's client id: %q", out)
	}
	if out := kafgo(t, "", "configs", addr(2), "--describe", "--user", "ANONYMOUS", "--client", "combo"); out !=
		"Quota configs for user-principal 'ANONYMOUS', client-id 'combo' are producer_byte_rate=102400.0, request_percentage=200.0\n" {
		t.Fatalf("describe a user's client id through broker 2: %q", out)
	}

	// One partition led by each broker.
	if err := createWithAssignment(ctx, cl, "zq", map[int32][]int32{0: {1}, 1: {2}, 2: {3}}); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, ctx, cl, "zq", map[int32][]int32{0: {1}, 1: {2}, 2: {3}})
	for _, clientID := range []string{"tool-set", "kadm-set", "combo"} {
		t.Run(clientID, func(t *testing.T) {
			var hook throttleCounter
			p := c.Client(kgo.ClientID(clientID), kgo.WithHooks(&hook), kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(64<<10))
			defer p.Close()
			pctx, stop := context.WithCancel(ctx)
			defer stop()
			value := make([]byte, 16<<10)
			for part := int32(0); part < 3; part++ {
				go func() {
					for pctx.Err() == nil {
						p.Produce(pctx, &kgo.Record{Topic: "zq", Partition: part, Value: value}, nil)
					}
				}()
			}
			testwait.For(t, 60*time.Second, "every broker throttling "+clientID, func() (bool, string) {
				var state []string
				done := true
				for _, id := range []int32{1, 2, 3} {
					l := appliedLimit(t, c.Broker(id), "produce", clientID)
					n := hook.by(id)
					state = append(state, fmt.Sprintf("broker %d: limit %v, %d throttled", id, l, n))
					done = done && l == limit && n > 0
				}
				return done, strings.Join(state, "; ")
			})
		})
	}
}
