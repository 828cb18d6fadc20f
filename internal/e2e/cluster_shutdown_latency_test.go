package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// maxHandOverStall bounds how long an acks=all produce may wait while a
// broker hands its leaderships over in a controlled shutdown. A hand-over
// costs the client one metadata refresh; this is a generous bound on a
// stall (the race-built brokers share two cores), not a speed benchmark.
const maxHandOverStall = 2500 * time.Millisecond

// kgoMetadataMinAge is franz-go's default MetadataMinAge: the least time
// between two metadata refreshes of a client.
const kgoMetadataMinAge = 5 * time.Second

// latencyLog records, per phase of a test, the slowest acknowledgement of
// records produced during that phase.
type latencyLog struct {
	mu    sync.Mutex
	phase string
	worst map[string]time.Duration
}

func (l *latencyLog) setPhase(p string) {
	l.mu.Lock()
	l.phase = p
	l.mu.Unlock()
}

func (l *latencyLog) current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase
}

func (l *latencyLog) add(phase string, d time.Duration) {
	l.mu.Lock()
	if d > l.worst[phase] {
		l.worst[phase] = d
	}
	l.mu.Unlock()
}

// TestAcksAllLatencyAcrossControlledShutdown: an acks=all producer at 200
// records/s (3 brokers on ZooKeeper, RF=3, min.insync.replicas=2) keeps
// being answered promptly while first the controller and then a partition
// leader are stopped with SIGTERM: no produce waits longer than
// maxHandOverStall, and every acknowledged record is read back.
func TestAcksAllLatencyAcrossControlledShutdown(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"min.insync.replicas":        "2",
		"default.replication.factor": "3",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const topic, parts = "handover", 3
	mcl := c.Client()
	if _, err := kadm.NewClient(mcl).CreateTopic(ctx, parts, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, mcl, topic, parts)

	acks := &ackLog{acked: map[int32]map[int]bool{}, lastAck: map[int32]time.Time{}}
	lat := &latencyLog{phase: "warm-up", worst: map[string]time.Duration{}}
	prod := c.Client(kgo.MetadataMinAge(kgoMetadataMinAge), kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordDeliveryTimeout(time.Minute))
	var produceErrs sync.Map
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond) // 200 records/s
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			p, seq := int32(i%parts), i/parts
			phase, start := lat.current(), time.Now()
			prod.Produce(ctx, &kgo.Record{Partition: p, Value: []byte(strconv.Itoa(seq))}, func(r *kgo.Record, err error) {
				lat.add(phase, time.Since(start))
				if err != nil {
					produceErrs.Store(err.Error(), true)
					return
				}
				acks.add(r.Partition, seq)
			})
		}
	}()
	waitAcked := func(what string) {
		t.Helper()
		from := acks.count()
		testwait.For(t, 30*time.Second, "acknowledgements "+what, func() (bool, string) {
			n := acks.count()
			return n >= from+200, fmt.Sprintf("%d acknowledged", n-from)
		})
	}
	waitAcked("before the first shutdown")

	stopAndRestart := func(phase string, victim *testcluster.Broker) {
		t.Helper()
		// A long-running producer last refreshed its metadata long ago, so
		// the hand-over's first NOT_LEADER_OR_FOLLOWER refreshes it at once;
		// franz-go refreshes at most every MetadataMinAge (5 s). Run that
		// long first, so only a second refresh (stale metadata after the
		// first one) can stall a produce past maxHandOverStall.
		time.Sleep(kgoMetadataMinAge + time.Second)
		lat.setPhase(phase)
		t.Logf("%s: SIGTERM to broker %d", phase, victim.ID)
		victim.Stop()
		waitAcked("after broker " + strconv.Itoa(int(victim.ID)) + " stopped")
		lat.setPhase(phase + ", broker back")
		victim.Start()
		waitFullISR(t, ctx, mcl, topic, parts)
		waitAcked("after broker " + strconv.Itoa(int(victim.ID)) + " returned")
	}

	// Two rounds: whether a client's refresh races the hand-over differs
	// from one shutdown to the next.
	for round := 1; round <= 2; round++ {
		ctl, err := controllerOf(ctx, mcl)
		if err != nil || ctl < 0 {
			t.Fatalf("controller: %d %v", ctl, err)
		}
		stopAndRestart(fmt.Sprintf("round %d, controller stopped", round), c.Broker(ctl))

		// A leader that is not the controller.
		var victim *testcluster.Broker
		testwait.For(t, 30*time.Second, "a leader that is not the controller", func() (bool, string) {
			ctl, err := controllerOf(ctx, mcl)
			if err != nil {
				return false, err.Error()
			}
			for _, l := range ledBy(t, ctx, mcl, topic) {
				if l >= 0 && l != ctl {
					victim = c.Broker(l)
					return true, ""
				}
			}
			return false, fmt.Sprintf("controller %d leads every partition", ctl)
		})
		stopAndRestart(fmt.Sprintf("round %d, leader stopped", round), victim)
	}

	close(stop)
	wg.Wait()
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A record may fail (not acknowledged, so allowed): franz-go does not
	// retry a request whose connection closes before its first answer,
	// which a broker that stops listening can cause.
	produceErrs.Range(func(k, _ any) bool { t.Logf("produce failed: %v", k); return true })
	lat.mu.Lock()
	for phase, d := range lat.worst {
		t.Logf("slowest acks=all produce, %s: %v", phase, d)
		// The warm-up includes the producer's start (metadata, producer
		// id); only shutdowns and restarts are bounded.
		if phase != "warm-up" && d > maxHandOverStall {
			t.Errorf("%s: an acks=all produce waited %v (bound %v)", phase, d, maxHandOverStall)
		}
	}
	lat.mu.Unlock()

	got, _ := readNumbered(t, ctx, c, mcl, topic, parts)
	if lost := lostAcked(acks, got); len(lost) > 0 {
		t.Fatalf("acknowledged records lost: %v", lost)
	}
	t.Logf("acknowledged %d records, none lost", acks.count())
}

// readNumbered reads every partition of topic from the start up to its end
// offset, returning the records' numeric values per partition and the end
// offsets.
func readNumbered(t *testing.T, ctx context.Context, c *testcluster.Cluster, mcl *kgo.Client, topic string, parts int) (map[int32][]int, kadm.ListedOffsets) {
	t.Helper()
	ends, err := kadm.NewClient(mcl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	remaining := int64(0)
	ends.Each(func(o kadm.ListedOffset) { remaining += o.Offset })
	cons := c.Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: allFromStart(parts)}))
	got := map[int32][]int{}
	for remaining > 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read back timed out with %d records left", remaining)
		}
		fs.EachRecord(func(r *kgo.Record) {
			v, _ := strconv.Atoi(string(r.Value))
			got[r.Partition] = append(got[r.Partition], v)
			remaining--
		})
	}
	return got, ends
}

// lostAcked lists the acknowledged records missing from got, as
// "p<partition>/<value>".
func lostAcked(acks *ackLog, got map[int32][]int) []string {
	acks.mu.Lock()
	defer acks.mu.Unlock()
	var lost []string
	for p, want := range acks.acked {
		seen := map[int]bool{}
		for _, v := range got[p] {
			seen[v] = true
		}
		for v := range want {
			if !seen[v] {
				lost = append(lost, fmt.Sprintf("p%d/%d", p, v))
			}
		}
	}
	return lost
}
