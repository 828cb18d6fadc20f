package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/record"
	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

func startCluster3(t *testing.T, extra map[string]string) (*testcluster.Cluster, *kgo.Client, context.Context) {
	t.Helper()
	cfg := map[string]string{
		"zookeeper.session.timeout.ms": "4000",
		"replica.lag.time.max.ms":      "3000",
	}
	for k, v := range extra {
		cfg[k] = v
	}
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: cfg})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	return c, c.Client(), ctx
}

func produceN(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
}

func isrOf(t *testing.T, ctx context.Context, adm *kgo.Client, topic string) (int32, []int32) {
	t.Helper()
	// A broker that has not yet heard of the topic answers an error:
	// callers poll, so report "no leader" rather than failing.
	l, isr, err := leaderOf(ctx, adm, topic, 0)
	if err != nil {
		return -1, nil
	}
	return l, isr
}

// TestPausedFollowerLeavesAndRejoinsISR: a follower whose fetches the
// leader stops serving leaves the ISR after replica.lag.time.max.ms, and
// rejoins once they are served again. The leader's protocol fault hook
// fails the follower's fetches (closes their connection), where this test
// used to SIGSTOP the follower: the same cause, with nothing else of the
// follower frozen (its ZooKeeper session, its other connections), and
// lifted the moment the fault is cleared.
func TestPausedFollowerLeavesAndRejoinsISR(t *testing.T) {
	c, adm, ctx := startCluster3(t, nil)
	if _, err := kadm.NewClient(adm).CreateTopic(ctx, 1, 3, nil, "pause"); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, adm, "pause", 1)
	leaderID := mustLeader(t, ctx, adm, "pause")
	leader := c.Broker(leaderID)
	var follower *testcluster.Broker
	for _, b := range c.Brokers() {
		if b.ID != leaderID {
			follower = b
			break
		}
	}
	prod := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	leader.Fault(t, testcluster.Fault{APIKey: 1, ClientIDPrefix: testcluster.FetcherOf(follower.ID), Action: "fail"})
	faulted := time.Now()
	cleared := false
	defer func() {
		if !cleared {
			leader.ClearFaults(t)
		}
	}()
	stopProducing := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stopProducing:
				return
			case <-time.After(50 * time.Millisecond):
			}
			prod.Produce(ctx, &kgo.Record{Topic: "pause", Value: []byte(fmt.Sprint(i))}, nil)
		}
	}()
	defer close(stopProducing)
	testwait.For(t, 30*time.Second, "the cut-off follower leaves the ISR", func() (bool, string) {
		_, isr := isrOf(t, ctx, adm, "pause")
		return !slices.Contains(isr, follower.ID), fmt.Sprint(isr)
	})
	// The lag clock starts at the follower's last caught-up fetch, which may
	// precede the fault by up to replica.fetch.wait.max.ms (500 ms).
	if d := time.Since(faulted); d < 3*time.Second-500*time.Millisecond {
		t.Fatalf("follower left the ISR after %v, before replica.lag.time.max.ms", d)
	}
	t.Logf("follower %d left the ISR %v after its fetches started failing", follower.ID, time.Since(faulted))
	leader.ClearFaults(t)
	cleared = true
	testwait.For(t, 30*time.Second, "the follower rejoins the ISR once its fetches are served", func() (bool, string) {
		_, isr := isrOf(t, ctx, adm, "pause")
		return slices.Contains(isr, follower.ID), fmt.Sprint(isr)
	})
}

// TestOldLeaderWithDivergentTailTruncates: the leader appends records its
// followers never get (acks=1 while they are paused), then dies; a follower
// takes over and new records are written in the new epoch. The old leader
// comes back, asks where its epoch ended on the new leader, truncates its
// divergent tail and rejoins: every replica ends identical below the HW.
func TestOldLeaderWithDivergentTailTruncates(t *testing.T) {
	c, adm, ctx := startCluster3(t, map[string]string{"replica.lag.time.max.ms": "10000"})
	const topic = "diverge"
	if _, err := kadm.NewClient(adm).CreateTopic(ctx, 1, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, adm, topic, 1)
	safe := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.AllISRAcks()))
	produceN(t, ctx, safe, topic, 0, 100)

	oldLeader := mustLeader(t, ctx, adm, topic)
	var followers []*testcluster.Broker
	for _, b := range c.Brokers() {
		if b.ID != oldLeader {
			followers = append(followers, b)
		}
	}
	// A raw acks=1 produce straight to the leader while its followers are
	// paused: the leader alone gets these records. The pause stays far
	// below the session and lag timeouts, so the followers stay in the ISR.
	direct, err := wire.Dial(ctx, c.Broker(oldLeader).Addr(), "divergent-tail")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	bld := record.NewBuilder(0, record.CodecNone)
	for i := 100; i < 120; i++ {
		bld.Append(time.Now().UnixMilli(), nil, []byte(fmt.Sprint(i)), nil)
	}
	tail, err := bld.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range followers {
		f.Pause()
	}
	// Fetches the followers had in flight are answered (empty) within
	// replica.fetch.wait.max.ms; only then is the tail written, so no
	// answer already on its way carries it to a follower.
	time.Sleep(time.Second)
	if code := produceCode(t, direct, produceRequest(topic, 0, tail)); code != 0 {
		t.Fatalf("unreplicated produce: %v", kerr.ErrorForCode(code))
	}
	c.Broker(oldLeader).Kill()
	for _, f := range followers {
		f.Resume()
	}
	testwait.For(t, 60*time.Second, "a new leader", func() (bool, string) {
		l, _, err := leaderOf(ctx, adm, topic, 0)
		return err == nil && l >= 0 && l != oldLeader, fmt.Sprint(l, err)
	})
	produceN(t, ctx, safe, topic, 1000, 50) // the new epoch's records
	c.Broker(oldLeader).Start()
	waitFullISR(t, ctx, adm, topic, 1)
	produceN(t, ctx, safe, topic, 2000, 10)

	ends, err := kadm.NewClient(adm).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	hw := ends[topic][0].Offset
	for _, b := range c.Brokers() {
		b.Stop()
	}
	var ref []byte
	for _, b := range c.Brokers() {
		data := logBelow(t, filepath.Join(b.DataDir(), topic+"-0"), hw)
		if ref == nil {
			ref = data
		} else if !bytes.Equal(ref, data) {
			t.Fatalf("broker %d log differs below HW %d after the old leader's return", b.ID, hw)
		}
	}
	// The old leader's unreplicated records are gone from its log, the
	// new epoch's are there.
	dump := dumpValues(t, c.Broker(oldLeader).DataDir(), topic)
	if !strings.Contains(dump, "payload: 1000") || strings.Contains(dump, "payload: 119") {
		t.Fatalf("old leader's log after rejoining:\n%s", dump)
	}
}

// dumpValues runs kafgo dump-log-segments over a partition's segments.
func dumpValues(t *testing.T, dataDir, topic string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dataDir, topic+"-0", "*.log"))
	out, err := exec.Command(testcluster.Binary(t), append([]string{"dump-log-segments", "--print-data-log", "--files"}, strings.Join(files, ","))...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("dump-log-segments failed: %v\n%s", err, out)
	}
	return string(out)
}

// TestControllerFailoverTopicCreationWorks: kill the controller; another
// broker is elected and creating a topic works again.
func TestControllerFailoverTopicCreationWorks(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	old, err := controllerOf(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	c.Broker(old).Kill()
	killed := time.Now()
	testwait.For(t, 60*time.Second, "a new controller", func() (bool, string) {
		id, err := controllerOf(ctx, cl)
		return err == nil && id >= 0 && id != old, fmt.Sprint(id, err)
	})
	t.Logf("controller failover after kill -9: %v", time.Since(killed))
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, 4, 2, nil, "after-failover")
	if err != nil || resp.Err != nil {
		t.Fatalf("create after failover: %v %v", err, resp.Err)
	}
	testwait.For(t, 30*time.Second, "the new topic has leaders", func() (bool, string) {
		parts, err := testcluster.Partitions(ctx, cl, "after-failover")
		if err != nil {
			return false, err.Error()
		}
		for _, p := range parts {
			if p.Leader < 0 || p.Leader == old {
				return false, fmt.Sprint(p)
			}
		}
		return len(parts) == 4, ""
	})
}

// TestUnderReplicatedPartitionsOfDeadBroker: kafgo topics
// --under-replicated-partitions lists the partitions a dead broker held.
func TestUnderReplicatedPartitionsOfDeadBroker(t *testing.T) {
	c, adm, ctx := startCluster3(t, nil)
	if _, err := kadm.NewClient(adm).CreateTopic(ctx, 3, 3, nil, "urp"); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, adm, "urp", 3)
	topics := func(args ...string) string {
		out, err := exec.Command(testcluster.Binary(t), append([]string{"topics", "--bootstrap-server", c.Bootstrap()}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kafgo topics %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := topics("--describe", "--under-replicated-partitions"); strings.TrimSpace(out) != "" {
		t.Fatalf("under-replicated partitions with every broker up:\n%s", out)
	}
	c.Broker(3).Kill()
	testwait.For(t, 60*time.Second, "broker 3 out of every ISR", func() (bool, string) {
		out := topics("--describe", "--under-replicated-partitions")
		return strings.Count(out, "Topic: urp") == 3, out
	})
	for _, line := range strings.Split(strings.TrimSpace(topics("--describe", "--under-replicated-partitions")), "\n") {
		if !strings.Contains(line, "Replicas: ") || strings.Contains(line[strings.Index(line, "Isr:"):], "3") {
			t.Fatalf("under-replicated line still lists broker 3 in the ISR: %q", line)
		}
	}
}

// mustLeader waits until partition 0 of topic has a leader.
func mustLeader(t *testing.T, ctx context.Context, cl *kgo.Client, topic string) int32 {
	t.Helper()
	var l int32 = -1
	testwait.For(t, 30*time.Second, "a leader for "+topic, func() (bool, string) {
		l, _ = isrOf(t, ctx, cl, topic)
		return l >= 0, ""
	})
	return l
}
