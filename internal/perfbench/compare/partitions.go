package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
)

// PartitionOptions shape the many-partitions run (issue 23): Partitions
// spread over topics of PerTopic partitions each, on Brokers brokers (one
// on the embedded store, or several on ZooKeeper) at replication factor RF.
type PartitionOptions struct {
	Partitions int
	PerTopic   int
	Brokers    int
	RF         int16
	// Failover also measures, with several brokers, a kill -9 of the
	// controller: the time until every partition it led has a new leader.
	Failover bool
	Logf     func(format string, args ...any)
}

// PartitionReport is what one run measured.
type PartitionReport struct {
	Opts                          PartitionOptions
	Create                        time.Duration // CreateTopics until every partition has a leader
	MetadataP50, MetadataMax      time.Duration // all-topics Metadata, 20 requests
	Produce                       time.Duration // one record to every partition, all acknowledged
	RSS                           int64         // the brokers' resident memory, summed
	FDs                           int           // the brokers' open files, summed
	CleanStop, CleanStart         time.Duration // SIGTERM to exit; start to serving every partition
	KillStart                     time.Duration // after kill -9: start to serving every partition
	FailoverAfterExpiry, Failover time.Duration // controller kill -9 to all its leaders moved (total, and past the session timeout)
	MovedLeaders                  int
}

// sessionTimeout is the brokers' zookeeper.session.timeout.ms here.
const sessionTimeout = 6 * time.Second

// RunPartitions creates the partitions and measures the cluster serving
// them, restarting it cleanly and after kill -9, and a controller failover.
func RunPartitions(t testing.TB, o PartitionOptions) PartitionReport {
	t.Helper()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if lim, err := RaiseFileLimit(); err == nil {
		logf("RLIMIT_NOFILE %d (inherited by the brokers)", lim)
	}
	r := PartitionReport{Opts: o}
	c := testcluster.Start(t, testcluster.Options{Brokers: o.Brokers, ZooKeeper: o.Brokers > 1, Config: map[string]string{
		"zookeeper.session.timeout.ms":     fmt.Sprint(sessionTimeout.Milliseconds()),
		"offsets.topic.replication.factor": "1",
	}})
	cl := c.Client(kgo.RequestTimeoutOverhead(5*time.Minute), kgo.RetryTimeout(5*time.Minute))
	adm := kadm.NewClient(cl)
	ctx := context.Background()

	var topics []string
	for i := 0; len(topics)*o.PerTopic < o.Partitions; i++ {
		topics = append(topics, fmt.Sprintf("many-%05d", i))
	}
	start := time.Now()
	for chunk := range slices.Chunk(topics, 100) {
		resp, err := adm.CreateTopics(ctx, int32(o.PerTopic), o.RF, nil, chunk...)
		if err != nil {
			t.Fatalf("CreateTopics: %v", err)
		}
		for _, tr := range resp {
			if tr.Err != nil && !strings.Contains(tr.Err.Error(), "REQUEST_TIMED_OUT") {
				t.Fatalf("CreateTopics %s: %v", tr.Topic, tr.Err)
			}
		}
	}
	waitLeaders(t, cl, topics, len(topics)*o.PerTopic, 30*time.Minute)
	r.Create = time.Since(start)
	logf("created %d partitions (%d topics, RF %d) in %v", len(topics)*o.PerTopic, len(topics), o.RF, r.Create.Round(time.Millisecond))

	var lat []time.Duration
	for range 20 {
		t0 := time.Now()
		if _, err := testcluster.Metadata(ctx, cl); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	r.MetadataP50, r.MetadataMax = lat[len(lat)/2], lat[len(lat)-1]

	r.Produce = produceEverywhere(t, c, topics, o.PerTopic)
	pids := brokerPIDs(c)
	r.RSS, r.FDs = rssOf(pids), fdsOf(pids)
	logf("metadata p50 %v max %v; one record to every partition in %v; RSS %.0f MiB, %d fds",
		r.MetadataP50.Round(time.Millisecond), r.MetadataMax.Round(time.Millisecond), r.Produce.Round(time.Millisecond), float64(r.RSS)/(1<<20), r.FDs)

	// Clean restart: SIGTERM every broker, then start them again.
	t0 := time.Now()
	for _, b := range c.Brokers() {
		b.Stop()
	}
	waitStopped(t, c, 10*time.Minute)
	r.CleanStop = time.Since(t0)
	t0 = time.Now()
	for _, b := range c.Brokers() {
		b.Start()
	}
	cl.Close()
	cl = c.Client(kgo.RequestTimeoutOverhead(5*time.Minute), kgo.RetryTimeout(5*time.Minute))
	waitLeaders(t, cl, topics, len(topics)*o.PerTopic, 30*time.Minute)
	produceEverywhere(t, c, topics, o.PerTopic)
	r.CleanStart = time.Since(t0)
	logf("clean stop %v, start to serving every partition %v", r.CleanStop.Round(time.Millisecond), r.CleanStart.Round(time.Millisecond))

	// kill -9 and start again.
	for _, b := range c.Brokers() {
		b.Kill()
	}
	t0 = time.Now()
	for _, b := range c.Brokers() {
		b.Start()
	}
	cl.Close()
	cl = c.Client(kgo.RequestTimeoutOverhead(5*time.Minute), kgo.RetryTimeout(5*time.Minute))
	waitLeaders(t, cl, topics, len(topics)*o.PerTopic, 30*time.Minute)
	produceEverywhere(t, c, topics, o.PerTopic)
	r.KillStart = time.Since(t0)
	logf("after kill -9: start to serving every partition %v", r.KillStart.Round(time.Millisecond))

	if o.Failover && o.Brokers > 1 {
		r.Failover, r.FailoverAfterExpiry, r.MovedLeaders = controllerFailover(t, c, cl, topics)
		logf("controller kill -9: %d leaders moved %v after the kill (%v after the session timeout)",
			r.MovedLeaders, r.Failover.Round(time.Millisecond), r.FailoverAfterExpiry.Round(time.Millisecond))
	}
	cl.Close()
	return r
}

func brokerPIDs(c *testcluster.Cluster) []int {
	var pids []int
	for _, b := range c.Brokers() {
		if b.Running() {
			pids = append(pids, b.PID())
		}
	}
	return pids
}

// fdsOf counts the open files of pids.
func fdsOf(pids []int) int {
	n := 0
	for _, pid := range pids {
		p, err := procfs.NewProc(pid)
		if err != nil {
			continue
		}
		if fds, err := p.FileDescriptorsLen(); err == nil {
			n += fds
		}
	}
	return n
}

// leaders maps each partition of topics to its leader (-1 without one).
func leaders(ctx context.Context, cl *kgo.Client, topics []string) (map[string]int32, error) {
	md, err := testcluster.Metadata(ctx, cl, topics...)
	if err != nil {
		return nil, err
	}
	out := map[string]int32{}
	for _, td := range md.Topics {
		for _, p := range td.Partitions {
			l := p.Leader
			if p.ErrorCode != 0 {
				l = -1
			}
			out[fmt.Sprintf("%s/%d", *td.Topic, p.Partition)] = l
		}
	}
	return out, nil
}

// waitLeaders waits until n partitions of topics have leaders.
func waitLeaders(t testing.TB, cl *kgo.Client, topics []string, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		ls, err := leaders(ctx, cl, topics)
		cancel()
		led := 0
		for _, l := range ls {
			if l >= 0 {
				led++
			}
		}
		if err == nil && led == n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("not every one of %d partitions has a leader after %v", n, limit)
}

func waitStopped(t testing.TB, c *testcluster.Cluster, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		running := false
		for _, b := range c.Brokers() {
			running = running || b.Running()
		}
		if !running {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("brokers still running %v after SIGTERM", limit)
}

// produceEverywhere writes one record to every partition and waits for
// every acknowledgement (acks=all, retried through leader changes).
func produceEverywhere(t testing.TB, c *testcluster.Cluster, topics []string, perTopic int) time.Duration {
	t.Helper()
	cl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(10*time.Millisecond),
		kgo.RequestTimeoutOverhead(2*time.Minute), kgo.MaxBufferedRecords(1_000_000))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Int64
	var first atomic.Value
	for _, topic := range topics {
		for p := range perTopic {
			wg.Add(1)
			cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: int32(p), Value: []byte("x")}, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
				}
				wg.Done()
			})
		}
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d records failed, first: %v", n, first.Load())
	}
	return time.Since(start)
}

// controllerFailover kills the controller with -9 and measures until every
// partition it led has a new leader: in all, and past the session timeout
// (the controller's own work: before it, ZooKeeper has not yet told
// anyone the broker is gone).
func controllerFailover(t testing.TB, c *testcluster.Cluster, cl *kgo.Client, topics []string) (total, afterExpiry time.Duration, moved int) {
	t.Helper()
	ctx := context.Background()
	req := kmsg.NewPtrMetadataRequest()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	victim := c.Broker(resp.ControllerID)
	before, err := leaders(ctx, cl, topics)
	if err != nil {
		t.Fatal(err)
	}
	var led []string
	for tp, l := range before {
		if l == victim.ID {
			led = append(led, tp)
		}
	}
	t0 := time.Now()
	victim.Kill()
	survivors := c.Client()
	defer survivors.Close()
	for time.Since(t0) < 10*time.Minute {
		ls, err := leaders(ctx, survivors, topics)
		if err == nil {
			left := 0
			for _, tp := range led {
				if l := ls[tp]; l < 0 || l == victim.ID {
					left++
				}
			}
			if left == 0 {
				total = time.Since(t0)
				return total, total - sessionTimeout, len(led)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the dead controller's partitions did not all get new leaders")
	return 0, 0, 0
}

// Markdown renders a partitions report.
func (r PartitionReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %d partitions, %d broker(s), RF %d\n\n| measure | value |\n|---|---:|\n", r.Opts.Partitions, r.Opts.Brokers, r.Opts.RF)
	row := func(k string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", k, v) }
	row("create (CreateTopics until every partition has a leader)", r.Create.Round(time.Millisecond))
	row("Metadata (all topics) p50 / max", fmt.Sprintf("%v / %v", r.MetadataP50.Round(time.Millisecond), r.MetadataMax.Round(time.Millisecond)))
	row("one record to every partition, acks=all", r.Produce.Round(time.Millisecond))
	row("RSS (brokers)", fmt.Sprintf("%.0f MiB", float64(r.RSS)/(1<<20)))
	row("open files (brokers)", r.FDs)
	row("clean stop (SIGTERM to exit)", r.CleanStop.Round(time.Millisecond))
	row("clean start to serving every partition", r.CleanStart.Round(time.Millisecond))
	row("start after kill -9 to serving every partition", r.KillStart.Round(time.Millisecond))
	if r.MovedLeaders > 0 {
		row(fmt.Sprintf("controller kill -9: %d leaders moved", r.MovedLeaders), fmt.Sprintf("%v (%v after the %v session timeout)",
			r.Failover.Round(time.Millisecond), r.FailoverAfterExpiry.Round(time.Millisecond), sessionTimeout))
	}
	return b.String()
}
