package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// replicaCounts counts every broker's replicas, all topics.
func replicaCounts(t testing.TB, ctx context.Context, adm *kadm.Client) map[int32]int {
	t.Helper()
	md, err := adm.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int{}
	for _, b := range md.Brokers {
		out[b.NodeID] = 0
	}
	for _, td := range md.Topics {
		for _, p := range td.Partitions {
			for _, r := range p.Replicas {
				out[r]++
			}
		}
	}
	return out
}

// partitionSizes is each partition's size, the largest of its replicas'.
func partitionSizes(t testing.TB, ctx context.Context, adm *kadm.Client) map[string]int64 {
	t.Helper()
	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	dirs.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
			k := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
			out[k] = max(out[k], p.Size)
		})
	})
	return out
}

// leftThrottles lists any replication throttle config still set on a
// broker or topic.
func leftThrottles(t *testing.T, ctx context.Context, adm *kadm.Client, brokers []int32, topics ...string) []string {
	t.Helper()
	var left []string
	keys := []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate",
		"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
	check := func(rcs kadm.ResourceConfigs, err error) {
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range rcs {
			for _, c := range rc.Configs {
				if slices.Contains(keys, c.Key) && c.Value != nil && *c.Value != "" && c.Source != kmsg.ConfigSourceDefaultConfig {
					left = append(left, rc.Name+" "+c.Key+"="+*c.Value)
				}
			}
		}
	}
	for _, b := range brokers {
		check(adm.DescribeBrokerConfigs(ctx, b))
	}
	check(adm.DescribeTopicConfigs(ctx, topics...))
	return left
}

// TestRebalanceSkewedCluster: three ZooKeeper brokers, topics whose
// replicas all sit on brokers 1 and 2. --add-broker 3 --dry-run plans
// moves of no more than 10% above the least data the replica-count goal
// needs (computed here from the partition sizes); --execute brings every
// broker within one replica of the mean while an acks=all producer runs,
// loses no acknowledged record and leaves no throttle config; then
// --remove-broker 3 drains broker 3.
func TestRebalanceSkewedCluster(t *testing.T) {
	c, cl, ctx := startCluster3(t, map[string]string{
		"offsets.topic.num.partitions":     "3",
		"offsets.topic.replication.factor": "2",
		"auto.leader.rebalance.enable":     "false",
	})
	bs := "--bootstrap-server=" + c.Bootstrap()
	adm := kadm.NewClient(cl)
	topics := map[string]int{"skew-a": 12, "skew-b": 6}
	for topic, n := range topics {
		var parts []string
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				parts = append(parts, "1:2")
			} else {
				parts = append(parts, "2:1")
			}
		}
		kafgo(t, "", "topics", bs, "--create", "--topic", topic, "--replica-assignment", strings.Join(parts, ","))
	}
	// Distinct sizes: partition i of skew-a gets (i+1)*16 records of 4 KiB,
	// skew-b's (i+1)*24.
	pcl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond))
	defer pcl.Close()
	value := strings.Repeat("x", 4096)
	for topic, n := range topics {
		per := 16
		if topic == "skew-b" {
			per = 24
		}
		var recs []*kgo.Record
		for p := 0; p < n; p++ {
			for i := 0; i < (p+1)*per; i++ {
				recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(p), Value: []byte(value)})
			}
		}
		if err := pcl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	testwait.For(t, 60*time.Second, "followers caught up", func() (bool, string) {
		sizes := partitionSizes(t, ctx, adm)
		dirs, err := adm.DescribeAllLogDirs(ctx, nil)
		if err != nil {
			return false, err.Error()
		}
		behind := 0
		dirs.Each(func(d kadm.DescribedLogDir) {
			d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
				if strings.HasPrefix(p.Topic, "skew") && p.Size != sizes[fmt.Sprintf("%s-%d", p.Topic, p.Partition)] {
					behind++
				}
			})
		})
		return behind == 0, fmt.Sprintf("%d replicas behind", behind)
	})

	// The least data the replica-count goal needs when replicas may only
	// move onto broker 3: k moves, k the larger of broker 3's shortfall
	// below the floor of the mean and brokers 1's and 2's excess over its
	// ceiling; at best the k smallest partitions broker 3 lacks.
	counts := replicaCounts(t, ctx, adm)
	total := 0
	for _, n := range counts {
		total += n
	}
	mean := float64(total) / 3
	k := max(int(math.Floor(mean))-counts[3], max(0, counts[1]-int(math.Ceil(mean)))+max(0, counts[2]-int(math.Ceil(mean))))
	sizes := partitionSizes(t, ctx, adm)
	var movable []int64
	for name, size := range sizes {
		if strings.HasPrefix(name, "skew") {
			movable = append(movable, size)
		}
	}
	sort.Slice(movable, func(i, j int) bool { return movable[i] < movable[j] })
	var bound int64
	for _, s := range movable[:k] {
		bound += s
	}
	t.Logf("replicas %v, mean %.2f: broker 3 needs %d; lower bound %d bytes", counts, mean, k, bound)

	planFile := filepath.Join(t.TempDir(), "plan.json")
	out := kafgo(t, "", "rebalance", bs, "--add-broker", "3", "--dry-run", "--metrics-window", "0",
		"--exclude-topics", "__consumer_offsets", "--reassignment-json-file", planFile)
	t.Logf("dry run:\n%s", out)
	if !strings.Contains(out, "Dry run: nothing was changed") || !strings.Contains(out, "ReplicaDistributionGoal               soft  violated  met") {
		t.Fatalf("dry run output:\n%s", out)
	}
	if after := replicaCounts(t, ctx, adm); after[3] != counts[3] {
		t.Fatalf("the dry run moved replicas: %v -> %v", counts, after)
	}
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Version    int
		Partitions []struct {
			Topic     string
			Partition int32
			Replicas  []int32
		}
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	md, err := adm.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var moved int64
	for _, p := range plan.Partitions {
		was := md.Topics[p.Topic].Partitions[p.Partition].Replicas
		for _, r := range p.Replicas {
			if !slices.Contains(was, r) {
				if r != 3 {
					t.Fatalf("%s-%d: %v -> %v moves onto broker %d", p.Topic, p.Partition, was, p.Replicas, r)
				}
				moved += sizes[fmt.Sprintf("%s-%d", p.Topic, p.Partition)]
			}
		}
	}
	if moved < bound || float64(moved) > 1.1*float64(bound) {
		t.Fatalf("the plan moves %d bytes; the least possible is %d (10%% over: %.0f)", moved, bound, 1.1*float64(bound))
	}

	// Execute under an acks=all producer.
	type acked struct {
		topic string
		p     int32
		off   int64
		v     string
	}
	var (
		mu       sync.Mutex
		acks     []acked
		failures int
	)
	prodCtx, stopProducing := context.WithCancel(ctx)
	prod := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0))
	defer prod.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; prodCtx.Err() == nil; i++ {
			topic := "skew-a"
			if i%3 == 0 {
				topic = "skew-b"
			}
			v := fmt.Sprintf("live-%d", i)
			r := &kgo.Record{Topic: topic, Value: []byte(v)}
			err := prod.ProduceSync(prodCtx, r).FirstErr()
			mu.Lock()
			if err == nil {
				acks = append(acks, acked{topic, r.Partition, r.Offset, v})
			} else if prodCtx.Err() == nil {
				failures++
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	out = kafgo(t, "", "rebalance", bs, "--add-broker", "3", "--execute", "--concurrency", "4", "--throttle", "2000000",
		"--metrics-window", "2s", "--exclude-topics", "__consumer_offsets")
	stopProducing()
	wg.Wait()
	t.Logf("execute:\n%s", out)
	if !strings.Contains(out, "no replication throttle is left") {
		t.Fatalf("execute output:\n%s", out)
	}
	// Every broker's metadata cache follows the controller shortly.
	testwait.For(t, 30*time.Second, "every broker within one replica of the mean", func() (bool, string) {
		counts := replicaCounts(t, ctx, adm)
		total := 0
		for _, n := range counts {
			total += n
		}
		mean := float64(total) / 3
		for _, n := range counts {
			if math.Abs(float64(n)-mean) >= 1 {
				return false, fmt.Sprintf("replicas %v, mean %.2f", counts, mean)
			}
		}
		return true, ""
	})
	if left := leftThrottles(t, ctx, adm, []int32{1, 2, 3}, "skew-a", "skew-b"); len(left) > 0 {
		t.Fatalf("throttles left: %v", left)
	}
	mu.Lock()
	t.Logf("%d records acknowledged during the move, %d sends failed", len(acks), failures)
	if len(acks) < 50 {
		t.Fatalf("only %d records acknowledged while moving", len(acks))
	}
	want := map[string]string{}
	for _, a := range acks {
		want[fmt.Sprintf("%s-%d@%d", a.topic, a.p, a.off)] = a.v
	}
	mu.Unlock()
	got := readAll(t, ctx, c, "skew-a", "skew-b")
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("acknowledged %s=%s reads back as %q", k, v, got[k])
		}
	}

	// Drain broker 3.
	out = kafgo(t, "", "rebalance", bs, "--remove-broker", "3", "--execute", "--metrics-window", "0", "--throttle", "-1")
	t.Logf("remove:\n%s", out)
	testwait.For(t, 30*time.Second, "broker 3 drained", func() (bool, string) {
		n := replicaCounts(t, ctx, adm)[3]
		return n == 0, fmt.Sprintf("broker 3 holds %d replicas", n)
	})
	if left := leftThrottles(t, ctx, adm, []int32{1, 2, 3}, "skew-a", "skew-b", "__consumer_offsets"); len(left) > 0 {
		t.Fatalf("throttles left: %v", left)
	}
}

// readAll reads every record of the topics from the start, keyed
// "topic-partition@offset".
func readAll(t *testing.T, ctx context.Context, c *testcluster.Cluster, topics ...string) map[string]string {
	t.Helper()
	adm := kadm.NewClient(c.Client())
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	ends.Each(func(o kadm.ListedOffset) { want += int(o.Offset) })
	cons := c.Client(kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer cons.Close()
	got := map[string]string{}
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for len(got) < want && rctx.Err() == nil {
		cons.PollFetches(rctx).EachRecord(func(r *kgo.Record) {
			got[fmt.Sprintf("%s-%d@%d", r.Topic, r.Partition, r.Offset)] = string(r.Value)
		})
	}
	if len(got) < want {
		t.Fatalf("read %d of %d records", len(got), want)
	}
	return got
}
