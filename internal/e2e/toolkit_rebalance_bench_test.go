package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// BenchmarkRebalanceSkewed measures kafgo rebalance on the skewed
// cluster: three ZooKeeper brokers, one topic of 60 partitions and 1 GiB
// whose replicas (RF 2) all sit on brokers 1 and 2, broker 3 empty;
// rebalance --add-broker 3 --execute (5 partitions at a time, 100 MiB/s
// throttle) while a producer sends one acks=all record every 10 ms. It
// reports the data the plan moved against the least the replica-count goal
// needs, the execution's wall time, and the producer's p99 latency before
// and during the move.
//
//	go test -run '^$' -bench RebalanceSkewed -benchtime 1x ./internal/e2e/
func BenchmarkRebalanceSkewed(b *testing.B) {
	c := testcluster.Start(b, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "2", "auto.leader.rebalance.enable": "false",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cl := c.Client()
	adm := kadm.NewClient(cl)
	assign := map[int32][]int32{}
	for p := int32(0); p < 60; p++ {
		assign[p] = []int32{1 + p%2, 2 - p%2}
	}
	if err := createWithAssignment(ctx, cl, "fig", assign); err != nil {
		b.Fatal(err)
	}
	perfProduce(b, c.Bootstrap(), "fig", "all", 1<<20, 1024) // 1 GiB of values
	testwait.For(b, 5*time.Minute, "followers caught up", func() (bool, string) {
		dirs, err := adm.DescribeAllLogDirs(ctx, nil)
		if err != nil {
			return false, err.Error()
		}
		sizes := map[int32][]int64{}
		dirs.Each(func(d kadm.DescribedLogDir) {
			d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
				if p.Topic == "fig" {
					sizes[p.Partition] = append(sizes[p.Partition], p.Size)
				}
			})
		})
		for p, s := range sizes {
			if len(s) != 2 || s[0] != s[1] {
				return false, fmt.Sprintf("fig-%d sizes %v", p, s)
			}
		}
		return len(sizes) == 60, ""
	})

	sizes := partitionSizes(b, ctx, adm)
	var total int64
	var all []int64
	for name, s := range sizes {
		if strings.HasPrefix(name, "fig-") {
			total += s
			all = append(all, s)
		}
	}
	// The least the replica-count goal needs: 40 of the 120 replicas onto
	// broker 3 (as counted with the internal topic's), the smallest.
	counts := replicaCounts(b, ctx, adm)
	sum := 0
	for _, n := range counts {
		sum += n
	}
	mean := float64(sum) / 3
	k := max(int(math.Floor(mean))-counts[3], max(0, counts[1]-int(math.Ceil(mean)))+max(0, counts[2]-int(math.Ceil(mean))))
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	var bound int64
	for _, s := range all[:k] {
		bound += s
	}

	// The latency producer.
	var (
		mu      sync.Mutex
		phase   = "before"
		samples = map[string][]time.Duration{}
	)
	pctx, stop := context.WithCancel(ctx)
	prod := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0))
	defer prod.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; pctx.Err() == nil; i++ {
			t0 := time.Now()
			err := prod.ProduceSync(pctx, &kgo.Record{Topic: "fig", Value: []byte(fmt.Sprint(i))}).FirstErr()
			d := time.Since(t0)
			mu.Lock()
			if err == nil {
				samples[phase] = append(samples[phase], d)
			}
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	}()
	time.Sleep(15 * time.Second)

	plan := filepath.Join(b.TempDir(), "plan.json")
	mu.Lock()
	phase = "during"
	mu.Unlock()
	b.ResetTimer()
	start := time.Now()
	out, err := exec.CommandContext(ctx, testcluster.Binary(b), "rebalance", "--bootstrap-server", c.Bootstrap(), "--add-broker", "3",
		"--execute", "--metrics-window", "0", "--exclude-topics", "__consumer_offsets", "--reassignment-json-file", plan).CombinedOutput()
	wall := time.Since(start)
	b.StopTimer()
	mu.Lock()
	phase = "after"
	mu.Unlock()
	stop()
	wg.Wait()
	if err != nil {
		b.Fatalf("rebalance: %v\n%s", err, out)
	}
	data, err := os.ReadFile(plan)
	if err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Partitions []struct {
			Topic     string
			Partition int32
			Replicas  []int32
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		b.Fatal(err)
	}
	var moved int64
	for _, p := range doc.Partitions {
		for _, r := range p.Replicas {
			if !slices.Contains(assign[p.Partition], r) {
				moved += sizes[fmt.Sprintf("%s-%d", p.Topic, p.Partition)]
			}
		}
	}
	p99 := func(ds []time.Duration) float64 {
		if len(ds) == 0 {
			return math.NaN()
		}
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(float64(len(s))*0.99)].Microseconds()) / 1000
	}
	mu.Lock()
	before, during := p99(samples["before"]), p99(samples["during"])
	nb, nd := len(samples["before"]), len(samples["during"])
	mu.Unlock()
	b.ReportMetric(float64(total)/(1<<20), "MiB_topic")
	b.ReportMetric(float64(moved)/(1<<20), "MiB_moved")
	b.ReportMetric(float64(bound)/(1<<20), "MiB_lower_bound")
	b.ReportMetric(wall.Seconds(), "s_wall")
	b.ReportMetric(before, "ms_p99_before")
	b.ReportMetric(during, "ms_p99_during")
	b.Logf("topic %d MiB; moved %d bytes, lower bound %d bytes (%.2fx); wall %v; p99 %.1f ms before (%d sends), %.1f ms during (%d sends)\n%s",
		total>>20, moved, bound, float64(moved)/float64(bound), wall.Round(time.Millisecond), before, nb, during, nd, out[:min(len(out), 4000)])
}
