package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestReassignPartitionsThrottled: on 3 brokers and ZooKeeper, two
// single-partition topics on brokers 1,2 with 10 MiB each. "free" moves to
// 1,3 without a throttle, as the yardstick; "slow" moves to 1,3 with
// --throttle 200000. While it moves, broker 3's new replica holds well under
// the data (bounded by the limit plus the allowance Kafka's quota window
// grants a fresh meter), --verify says in progress and clears nothing, the
// brokers and the topic carry the throttle configs, and broker 3's metrics
// show its follower quota counting and holding the replica back. Resubmitting
// with --additional --throttle 100000000 lifts the limit at run time, so the
// move completes well before the old limit would allow; --verify then
// reports it completed and removes every throttle config, and broker 3's log
// is byte-identical to the leader's.
func TestReassignPartitionsThrottled(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	bs := "--bootstrap-server=" + c.Bootstrap()
	const (
		recordSize, records = 16 << 10, 640 // 10 MiB of values per topic
		limit               = 200_000       // B/s
		throttledFor        = 6 * time.Second
	)
	for _, topic := range []string{"free", "slow"} {
		if err := createWithAssignment(ctx, cl, topic, map[int32][]int32{0: {1, 2}}); err != nil {
			t.Fatal(err)
		}
		waitReplicas(t, ctx, cl, topic, map[int32][]int32{0: {1, 2}})
		produceBulk(t, ctx, c, topic, records, recordSize)
	}
	leaderBytes := partitionLogBytes(t, c.Broker(1), "slow")
	if leaderBytes < records*recordSize {
		t.Fatalf("leader holds %d bytes of slow-0, want at least %d", leaderBytes, records*recordSize)
	}

	// The yardstick: the same move without a throttle.
	freePlan := writeTemp(t, "free.json", `{"version":1,"partitions":[{"topic":"free","partition":0,"replicas":[1,3]}]}`)
	freeBytes := partitionLogBytes(t, c.Broker(1), "free")
	start := time.Now()
	kafgo(t, "", "reassign-partitions", bs, "--execute", "--reassignment-json-file", freePlan)
	testwait.For(t, 30*time.Second, "unthrottled copy on broker 3", func() (bool, string) {
		n := partitionLogBytes(t, c.Broker(3), "free")
		return n >= freeBytes, fmt.Sprintf("%d of %d bytes", n, freeBytes)
	})
	unthrottled := time.Since(start)
	waitReplicas(t, ctx, cl, "free", map[int32][]int32{0: {1, 3}})

	// The throttled move.
	plan := writeTemp(t, "slow.json", `{"version":1,"partitions":[{"topic":"slow","partition":0,"replicas":[1,3]}]}`)
	start = time.Now()
	out := kafgo(t, "", "reassign-partitions", bs, "--execute", "--reassignment-json-file", plan, "--throttle", strconv.Itoa(limit))
	if want := "Save this to use as the --reassignment-json-file option during rollback\n" +
		"Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.\n" +
		"The inter-broker throttle limit was set to 200000 B/s\n" +
		"Successfully started partition reassignment for slow-0\n"; !strings.HasSuffix(out, want) {
		t.Fatalf("--execute --throttle:\n%s\nwant it to end with:\n%s", out, want)
	}
	testwait.For(t, 20*time.Second, "the throttled copy to start", func() (bool, string) {
		return partitionLogBytes(t, c.Broker(3), "slow") > 0, "nothing on broker 3 yet"
	})
	// The quota's state at a moment well inside its first window cycle.
	testwait.For(t, 10*time.Second, "broker 3's follower quota to hold the replica back", func() (bool, string) {
		held := metricValue(t, c.Broker(3), `kafgo_replication_throttle_held_back_total{side="follower"}`)
		on := metricValue(t, c.Broker(3), `kafgo_replication_throttling{side="follower"}`)
		return held > 0 && on == 1, fmt.Sprintf("held back %v, throttling %v", held, on)
	})
	if v := metricValue(t, c.Broker(3), `kafgo_replication_throttled_bytes_total{side="follower"}`); v <= 0 {
		t.Fatalf("broker 3 counted %v follower-throttled bytes", v)
	}
	if v := metricValue(t, c.Broker(1), `kafgo_replication_throttled_bytes_total{side="leader"}`); v <= 0 {
		t.Fatalf("broker 1 counted %v leader-throttled bytes", v)
	}
	if v := metricValue(t, c.Broker(3), `kafgo_replication_throttle_limit_bytes{side="follower"}`); v != limit {
		t.Fatalf("broker 3's follower limit is %v", v)
	}
	wantConfigs := map[string]string{
		"topic slow leader.replication.throttled.replicas":   "0:1,0:2 DYNAMIC_TOPIC_CONFIG",
		"topic slow follower.replication.throttled.replicas": "0:3 DYNAMIC_TOPIC_CONFIG",
	}
	for _, id := range []int{1, 2, 3} {
		wantConfigs[fmt.Sprintf("broker %d leader.replication.throttled.rate", id)] = "200000 DYNAMIC_BROKER_CONFIG"
		wantConfigs[fmt.Sprintf("broker %d follower.replication.throttled.rate", id)] = "200000 DYNAMIC_BROKER_CONFIG"
	}
	// Each broker describes what it applied from the ZooKeeper notifications.
	testwait.For(t, 10*time.Second, "the throttle configs described", func() (bool, string) {
		got := throttleConfigs(t, ctx, c, "slow")
		return maps.Equal(got, wantConfigs), fmt.Sprintf("%v, want %v", got, wantConfigs)
	})
	if v := kafgo(t, "", "reassign-partitions", bs, "--verify", "--reassignment-json-file", plan); v != "Status of partition reassignment:\nReassignment of partition slow-0 is still in progress.\n" {
		t.Fatalf("--verify while moving:\n%s", v)
	}
	time.Sleep(time.Until(start.Add(throttledFor))) // the sampling point, not a wait for a condition
	moved := partitionLogBytes(t, c.Broker(3), "slow")
	elapsed := time.Since(start)
	// Kafka's meter assumes (window.num-1) windows of history, so about
	// limit x 10 s passes at once, and the rate is checked before each
	// fetch of up to replica.fetch.max.bytes (1 MiB) on either side.
	allowance := int64(limit*(elapsed.Seconds()+11)) + 2<<20
	if moved > allowance || moved > leaderBytes/2 {
		t.Fatalf("after %v under a %d B/s throttle broker 3 holds %d of %d bytes (allowance %d; unthrottled, all of it took %v)",
			elapsed, limit, moved, leaderBytes, allowance, unthrottled)
	}

	// Raising the throttle on the running move takes effect without a
	// restart: the rest arrives long before 200 kB/s would allow (the next
	// window cycle alone starts 11 s after the first bytes).
	raised := time.Now()
	out = kafgo(t, "", "reassign-partitions", bs, "--execute", "--additional", "--reassignment-json-file", plan, "--throttle", "100000000")
	if !strings.HasSuffix(out, "The inter-broker throttle limit was set to 100000000 B/s\nSuccessfully started partition reassignment for slow-0\n") {
		t.Fatalf("--additional --throttle:\n%s", out)
	}
	testwait.For(t, 15*time.Second, "the move to finish at the raised rate", func() (bool, string) {
		n := partitionLogBytes(t, c.Broker(3), "slow")
		return n >= leaderBytes, fmt.Sprintf("%d of %d bytes", n, leaderBytes)
	})
	rest := time.Since(raised)
	waitReplicas(t, ctx, cl, "slow", map[int32][]int32{0: {1, 3}})
	verified := kafgo(t, "", "reassign-partitions", bs, "--verify", "--reassignment-json-file", plan)
	if want := "Status of partition reassignment:\nReassignment of partition slow-0 is completed.\n" +
		"Clearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic slow\n"; verified != want {
		t.Fatalf("--verify after the move:\n%s\nwant:\n%s", verified, want)
	}
	// The brokers apply the deletions from ZooKeeper notifications.
	testwait.For(t, 20*time.Second, "every throttle config gone", func() (bool, string) {
		got := throttleConfigs(t, ctx, c, "slow")
		return len(got) == 0, fmt.Sprint(got)
	})
	testwait.For(t, 20*time.Second, "broker 3's follower quota back to no limit", func() (bool, string) {
		v := metricValue(t, c.Broker(3), `kafgo_replication_throttle_limit_bytes{side="follower"}`)
		return v == 9223372036854775807, fmt.Sprint(v)
	})

	// Every record is on the new replica, identical to the leader's.
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "slow")
	if err != nil {
		t.Fatal(err)
	}
	hw := int64(-1)
	ends.Each(func(o kadm.ListedOffset) { hw = o.Offset })
	if hw != records {
		t.Fatalf("slow-0 HW %d, want %d", hw, records)
	}
	a := logBelow(t, filepath.Join(c.Broker(1).DataDir(), "slow-0"), hw)
	b := logBelow(t, filepath.Join(c.Broker(3).DataDir(), "slow-0"), hw)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("brokers 1 and 3 differ below HW %d (%d vs %d bytes)", hw, len(a), len(b))
	}

	rate := func(n int64, d time.Duration) float64 { return float64(n) / d.Seconds() }
	t.Logf("replication of one %d-byte partition to a new replica: unthrottled %v (%.0f B/s); throttled at %d B/s: %d bytes in the first %v (%.0f B/s, %.1fx the limit: Kafka's quota lets about limit x (window.num-1) x window.size plus a fetch through before it bites, then nothing until that window expires at 11 s); after raising the throttle to 100 MB/s the remaining %d bytes took %v",
		freeBytes, unthrottled.Round(time.Millisecond), rate(freeBytes, unthrottled),
		limit, moved, elapsed.Round(time.Millisecond), rate(moved, elapsed), rate(moved, elapsed)/limit,
		leaderBytes-moved, rest.Round(time.Millisecond))
}

// produceBulk writes n uncompressed records of size random bytes to
// partition 0 of topic, waiting for every acknowledgement, so the log holds
// at least n*size bytes.
func produceBulk(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string, n, size int) {
	t.Helper()
	p := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	defer p.Close()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	for i := 0; i < n; i += 64 {
		var rs []*kgo.Record
		for j := i; j < min(i+64, n); j++ {
			value := make([]byte, size)
			for k := range value {
				value[k] = byte(rng.Uint32())
			}
			rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: value})
		}
		if err := p.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
	}
}

// partitionLogBytes is the size of partition 0's segment files on a broker
// (0 before the replica exists).
func partitionLogBytes(t testing.TB, b *testcluster.Broker, topic string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(b.DataDir(), topic+"-0", "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// metricValue reads one series from a broker's /metrics; -1 if absent.
func metricValue(t *testing.T, b *testcluster.Broker, series string) float64 {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + b.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatalf("scraping broker %d: %v", b.ID, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("broker %d: %s: %v", b.ID, sc.Text(), err)
			}
			return f
		}
	}
	return -1
}

// throttleConfigs lists the throttle configs set anywhere (not at their
// defaults) on every broker and on topic, as "broker 1 key" / "topic t key"
// -> "value SOURCE".
func throttleConfigs(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string) map[string]string {
	t.Helper()
	adm := c.Admin()
	defer adm.Close()
	got := map[string]string{}
	keep := func(prefix string, rc kadm.ResourceConfig, keys ...string) {
		if rc.Err != nil {
			t.Fatalf("describing %s%s: %v %s", prefix, rc.Name, rc.Err, rc.ErrMessage)
		}
		for _, cfg := range rc.Configs {
			for _, k := range keys {
				if cfg.Key == k && cfg.Source.String() != "DEFAULT_CONFIG" {
					got[prefix+rc.Name+" "+k] = cfg.MaybeValue() + " " + cfg.Source.String()
				}
			}
		}
	}
	brokers, err := adm.DescribeBrokerConfigs(ctx, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range brokers {
		keep("broker ", rc, "leader.replication.throttled.rate", "follower.replication.throttled.rate")
	}
	topics, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range topics {
		keep("topic ", rc, "leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
	}
	return got
}
