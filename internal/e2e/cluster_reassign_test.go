package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestReassignPartitionsMovesEveryPartition: on 3 brokers and ZooKeeper, a
// 3-partition RF=2 topic with data is moved with `kafgo reassign-partitions`
// so that every partition gets a different replica pair and loses its
// leader's replica. Afterwards every record is there, the new replicas hold
// identical logs below the HW, the removed replicas' directories are gone,
// nothing is listed as moving, and the topic znode holds the final
// assignment with empty adding/removing maps.
func TestReassignPartitionsMovesEveryPartition(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	bs := "--bootstrap-server=" + c.Bootstrap()
	const topic, perPartition = "moving", 400
	before := map[int32][]int32{0: {1, 2}, 1: {2, 3}, 2: {3, 1}}
	after := map[int32][]int32{0: {2, 3}, 1: {3, 1}, 2: {1, 2}}
	if err := createWithAssignment(ctx, cl, topic, before); err != nil {
		t.Fatal(err)
	}
	waitReplicas(t, ctx, cl, topic, before)

	prod := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	produceNumbered(t, ctx, prod, topic, 3, 0, perPartition)

	// --generate proposes a placement without changing anything.
	topicsFile := writeTemp(t, "topics.json", `{"topics": [{"topic": "moving"}], "version":1}`)
	gen := kafgo(t, "", "reassign-partitions", bs, "--generate", "--topics-to-move-json-file", topicsFile, "--broker-list", "1,2,3")
	if !regexp.MustCompile(`^Current partition replica assignment\n\{"version":1,"partitions":\[.*\]\}\n\nProposed partition reassignment configuration\n\{"version":1,"partitions":\[.*\]\}\n$`).MatchString(gen) ||
		!strings.Contains(gen, `{"topic":"moving","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}`) {
		t.Fatalf("--generate:\n%s", gen)
	}

	plan := writeTemp(t, "plan.json", `{"version":1,"partitions":[`+
		`{"topic":"moving","partition":0,"replicas":[2,3]},`+
		`{"topic":"moving","partition":1,"replicas":[3,1]},`+
		`{"topic":"moving","partition":2,"replicas":[1,2],"log_dirs":["any","any"]}]}`)
	out := kafgo(t, "", "reassign-partitions", bs, "--execute", "--reassignment-json-file", plan)
	wantExec := "Current partition replica assignment\n\n" +
		`{"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},` +
		`{"topic":"moving","partition":1,"replicas":[2,3],"log_dirs":["any","any"]},` +
		`{"topic":"moving","partition":2,"replicas":[3,1],"log_dirs":["any","any"]}]}` + "\n\n" +
		"Save this to use as the --reassignment-json-file option during rollback\n" +
		"Successfully started partition reassignments for moving-0,moving-1,moving-2\n"
	if out != wantExec {
		t.Fatalf("--execute:\n%s\nwant:\n%s", out, wantExec)
	}
	// Records written while the partitions move are kept too.
	produceNumbered(t, ctx, prod, topic, 3, perPartition, 100)

	testwait.For(t, 90*time.Second, "--verify reports every move completed", func() (bool, string) {
		v := kafgo(t, "", "reassign-partitions", bs, "--verify", "--reassignment-json-file", plan)
		return strings.Count(v, " is completed.\n") == 3, v
	})
	final := kafgo(t, "", "reassign-partitions", bs, "--verify", "--reassignment-json-file", plan)
	if want := "Status of partition reassignment:\n" +
		"Reassignment of partition moving-0 is completed.\nReassignment of partition moving-1 is completed.\nReassignment of partition moving-2 is completed.\n" +
		"Clearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic moving\n"; final != want {
		t.Fatalf("--verify:\n%s\nwant:\n%s", final, want)
	}
	if l := kafgo(t, "", "reassign-partitions", bs, "--list"); l != "No partition reassignments found.\n" {
		t.Fatalf("--list: %q", l)
	}
	waitReplicas(t, ctx, cl, topic, after)
	produceNumbered(t, ctx, prod, topic, 3, perPartition+100, 50)
	const total = perPartition + 150

	// Every record, in order, from the new leaders.
	got := consumeNumbered(t, c, topic, 3, total)
	for p := int32(0); p < 3; p++ {
		if len(got[p]) != total {
			t.Fatalf("partition %d: %d records, want %d", p, len(got[p]), total)
		}
		for i, v := range got[p] {
			if v != i {
				t.Fatalf("partition %d: record %d is %d", p, i, v)
			}
		}
	}

	// The ZooKeeper tree holds the final assignment, nothing in flight.
	zn := testcluster.ZooKeeperShell(t, c.ZK.Connect(), "get", "/brokers/topics/"+topic)
	if !strings.Contains(zn, `"partitions":{"0":[2,3],"1":[3,1],"2":[1,2]},"adding_replicas":{},"removing_replicas":{}`) {
		t.Fatalf("topic znode: %s", zn)
	}
	if tree := testcluster.ZooKeeperShell(t, c.ZK.Connect(), "ls", "/admin"); strings.Contains(tree, "reassign_partitions") {
		t.Fatalf("/admin still holds a reassignment request: %s", tree)
	}

	// Only the new replicas keep directories (deleted ones are renamed
	// "-delete" and removed in the background).
	testwait.For(t, 30*time.Second, "removed replicas' directories gone", func() (bool, string) {
		var have, want []string
		for _, b := range c.Brokers() {
			dirs, _ := filepath.Glob(filepath.Join(b.DataDir(), topic+"-*"))
			for _, d := range dirs {
				have = append(have, fmt.Sprintf("%d:%s", b.ID, filepath.Base(d)))
			}
			for p, rs := range after {
				if slices.Contains(rs, b.ID) {
					want = append(want, fmt.Sprintf("%d:%s-%d", b.ID, topic, p))
				}
			}
		}
		sort.Strings(have)
		sort.Strings(want)
		return slices.Equal(have, want), strings.Join(have, " ")
	})

	// The new replicas' logs are identical below the HW.
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	hws := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { hws[o.Partition] = o.Offset })
	for _, b := range c.Brokers() {
		b.Stop()
	}
	for p, rs := range after {
		if hws[p] != total {
			t.Fatalf("partition %d: HW %d, want %d", p, hws[p], total)
		}
		a := logBelow(t, filepath.Join(c.Broker(rs[0]).DataDir(), fmt.Sprintf("%s-%d", topic, p)), hws[p])
		b := logBelow(t, filepath.Join(c.Broker(rs[1]).DataDir(), fmt.Sprintf("%s-%d", topic, p)), hws[p])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Fatalf("partition %d: brokers %d and %d differ below HW %d (%d vs %d bytes)", p, rs[0], rs[1], hws[p], len(a), len(b))
		}
	}
}

// createWithAssignment creates a topic with the given replicas per partition.
func createWithAssignment(ctx context.Context, cl *kgo.Client, name string, assignment map[int32][]int32) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = name
	rt.NumPartitions, rt.ReplicationFactor = -1, -1
	for p := int32(0); p < int32(len(assignment)); p++ {
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition, ra.Replicas = p, assignment[p]
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if code := resp.Topics[0].ErrorCode; code != 0 {
		return kerr.ErrorForCode(code)
	}
	return nil
}

// waitReplicas waits until uncached metadata shows exactly the given
// replicas for every partition, all of them in sync and one leading.
func waitReplicas(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, want map[int32][]int32) {
	t.Helper()
	testwait.For(t, 60*time.Second, fmt.Sprintf("%s on replicas %v, all in sync", topic, want), func() (bool, string) {
		md, err := testcluster.Metadata(ctx, cl, topic)
		if err != nil {
			return false, err.Error()
		}
		if len(md.Topics) != 1 || len(md.Topics[0].Partitions) != len(want) {
			return false, "partitions missing"
		}
		for _, p := range md.Topics[0].Partitions {
			isr := slices.Clone(p.ISR)
			slices.Sort(isr)
			rs := slices.Clone(want[p.Partition])
			slices.Sort(rs)
			if !slices.Equal(p.Replicas, want[p.Partition]) || !slices.Equal(isr, rs) || !slices.Contains(rs, p.Leader) {
				return false, fmt.Sprintf("partition %d: replicas %v isr %v leader %d", p.Partition, p.Replicas, p.ISR, p.Leader)
			}
		}
		return true, ""
	})
}

// produceNumbered writes the values from..from+n-1 to each partition,
// waiting for every acknowledgement.
func produceNumbered(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, parts int32, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		var rs []*kgo.Record
		for p := int32(0); p < parts; p++ {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(strconv.Itoa(i))})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
}

// consumeNumbered reads n records from each partition from the start.
func consumeNumbered(t *testing.T, c *testcluster.Cluster, topic string, parts int32, n int) map[int32][]int {
	t.Helper()
	cons := c.Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: allFromStart(int(parts))}))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	got := map[int32][]int{}
	for remaining := int(parts) * n; remaining > 0; {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consume: %d records missing", remaining)
		}
		fs.EachRecord(func(r *kgo.Record) {
			v, err := strconv.Atoi(string(r.Value))
			if err != nil {
				t.Fatalf("record value %q", r.Value)
			}
			got[r.Partition] = append(got[r.Partition], v)
			remaining--
		})
	}
	return got
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
