package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcluster"
)

// runConfluent runs a confluent-kafka (librdkafka) script with
// /usr/bin/python3 and decodes the JSON object it prints (one line) into
// out.
func runConfluent(t *testing.T, timeout time.Duration, script string, out any, args ...string) {
	t.Helper()
	if err := exec.Command(python, "-c", "import confluent_kafka").Run(); err != nil {
		needs.Missing(t, "confluent-kafka is not installed for "+python+": apt-get install python3-confluent-kafka")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{"-c", script}, args...)...)
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("confluent-kafka script: %v\n%s", err, raw)
	}
	// librdkafka logs to the same stderr; the result is the one JSON line.
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), out); err != nil {
				t.Fatalf("confluent-kafka script output: %v\n%s", err, raw)
			}
			t.Logf("confluent-kafka script:\n%s", raw)
			return
		}
	}
	t.Fatalf("no JSON line in the confluent-kafka script's output:\n%s", raw)
}

// cfkCommon is the Python both scripts share: read a topic to its end
// (every partition's EOF) with an isolation level.
const cfkCommon = `
import json, sys, time
from confluent_kafka import Consumer, Producer, KafkaException, TopicPartition

def read_all(bootstrap, topic, isolation, group):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                  "enable.auto.commit": False, "enable.partition.eof": True, "isolation.level": isolation})
    md = c.list_topics(topic, timeout=20)
    parts = sorted(md.topics[topic].partitions)
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    eof, out = set(), []
    deadline = time.time() + 60
    while len(eof) < len(parts) and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                eof.add(m.partition())
                continue
            raise KafkaException(m.error())
        out.append(m.value().decode())
    c.close()
    if len(eof) < len(parts):
        raise SystemExit("no EOF on every partition of %s within 60s" % topic)
    return out
`

// TestConfluentKafkaTransactions: librdkafka's transactional producer
// aborts one transaction and commits the next; a read_committed consumer
// sees only the committed records, a read_uncommitted one both.
func TestConfluentKafkaTransactions(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"transaction.state.log.num.partitions": "5"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const topic = "cfk-txn"
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Committed, Uncommitted []string
		Fenced                 string
	}
	runConfluent(t, 2*time.Minute, cfkCommon+`
b, topic = sys.argv[1], sys.argv[2]
p = Producer({"bootstrap.servers": b, "transactional.id": "cfk-1", "transaction.timeout.ms": 30000})
p.init_transactions(60)
p.begin_transaction()
for i in range(30):
    p.produce(topic, key=b"k%d" % i, value=b"aborted-%d" % i)
p.flush(30)  # the records reach the log before the abort
p.abort_transaction(60)
p.begin_transaction()
for i in range(30):
    p.produce(topic, key=b"k%d" % i, value=b"committed-%d" % i)
p.commit_transaction(60)

# A second producer with the same transactional.id fences the first.
p2 = Producer({"bootstrap.servers": b, "transactional.id": "cfk-1"})
p2.init_transactions(60)
fenced = ""
try:
    p.begin_transaction()
    p.produce(topic, value=b"zombie")
    p.commit_transaction(30)
except KafkaException as e:
    fenced = e.args[0].name()
print(json.dumps({"committed": read_all(b, topic, "read_committed", "rc"),
                  "uncommitted": read_all(b, topic, "read_uncommitted", "ru"), "fenced": fenced}))
`, &got, c.Bootstrap(), topic)

	var committed, aborted []string
	for i := range 30 {
		committed = append(committed, fmt.Sprintf("committed-%d", i))
		aborted = append(aborted, fmt.Sprintf("aborted-%d", i))
	}
	if !sameSet(got.Committed, committed) {
		t.Fatalf("read_committed saw %d records %v, want exactly the 30 committed ones", len(got.Committed), got.Committed)
	}
	if !sameSet(got.Uncommitted, append(slices.Clone(aborted), committed...)) {
		t.Fatalf("read_uncommitted saw %d records %v, want the 30 aborted and the 30 committed", len(got.Uncommitted), got.Uncommitted)
	}
	if got.Fenced != "_FENCED" && got.Fenced != "PRODUCER_FENCED" && got.Fenced != "INVALID_PRODUCER_EPOCH" {
		t.Fatalf("the zombie producer's transaction ended with %q, want it fenced", got.Fenced)
	}
	// Kafka's own consumer (kgo here) agrees on what is committed.
	if rc := readValues(t, ctx, c, topic, kgo.ReadCommitted(), len(committed)); !sameSet(rc, committed) {
		t.Fatalf("kgo read_committed saw %v", rc)
	}
}

// TestConfluentKafkaConsumeTransformProduce: a librdkafka
// consume-transform-produce loop commits its input offsets with
// send_offsets_to_transaction; one transaction is aborted and the
// consumer restarts from the group's committed offsets, as after a crash.
// The output has every input record exactly once and the group's offsets
// end at the input's end.
func TestConfluentKafkaConsumeTransformProduce(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"transaction.state.log.num.partitions": "5"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const in, out, group, n = "cfk-in", "cfk-out", "cfk-etl", 300
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, in); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, out); err != nil {
		t.Fatal(err)
	}
	pcl := c.Client()
	var want []string
	for i := range n {
		r := &kgo.Record{Topic: in, Key: fmt.Appendf(nil, "k%d", i%17), Value: fmt.Appendf(nil, "rec-%d", i)}
		pcl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce: %v", err)
			}
		})
		want = append(want, fmt.Sprintf("REC-%d", i))
	}
	if err := pcl.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	var got struct {
		Aborted   int
		Committed int
		Output    []string
		Raw       []string
	}
	runConfluent(t, 3*time.Minute, cfkCommon+`
b, src, dst, group, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
p = Producer({"bootstrap.servers": b, "transactional.id": "cfk-etl-1"})
p.init_transactions(60)

def consumer():
    c = Consumer({"bootstrap.servers": b, "group.id": group, "auto.offset.reset": "earliest",
                  "enable.auto.commit": False, "isolation.level": "read_committed"})
    c.subscribe([src])
    return c

c = consumer()
done, aborted, committed, txn = 0, 0, 0, 0
deadline = time.time() + 120
while done < n and time.time() < deadline:
    msgs = c.consume(50, 1.0)
    msgs = [m for m in msgs if not m.error()]
    if not msgs:
        continue
    p.begin_transaction()
    for m in msgs:
        p.produce(dst, key=m.key(), value=m.value().upper())
    p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 60)
    txn += 1
    if txn == 2:
        # Give up this batch: its output is aborted, its offsets are not
        # committed, and a new consumer resumes at the committed ones.
        p.flush(30)
        p.abort_transaction(60)
        aborted += len(msgs)
        c.close()
        c = consumer()
        continue
    p.commit_transaction(60)
    committed += 1
    done += len(msgs)
c.close()
print(json.dumps({"aborted": aborted, "committed": committed,
                  "output": read_all(b, dst, "read_committed", "check-rc"),
                  "raw": read_all(b, dst, "read_uncommitted", "check-ru")}))
`, &got, c.Bootstrap(), in, out, group, fmt.Sprint(n))

	t.Logf("%d transactions committed, %d records in the aborted one", got.Committed, got.Aborted)
	if got.Aborted == 0 {
		t.Fatal("no transaction was aborted: the test cannot tell duplicates from none")
	}
	if !sameSet(got.Output, want) {
		t.Fatalf("read_committed output has %d records, want the %d input records transformed, each once: %v", len(got.Output), n, got.Output)
	}
	if len(got.Raw) != n+got.Aborted {
		t.Fatalf("read_uncommitted output has %d records, want %d (every record plus the aborted batch)", len(got.Raw), n+got.Aborted)
	}
	// The group's offsets, committed in the transactions, are at the end
	// of every input partition.
	offs, err := c.Admin().FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := c.Admin().ListEndOffsets(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(e kadm.ListedOffset) {
		o, ok := offs.Lookup(in, e.Partition)
		if !ok || o.At != e.Offset {
			t.Errorf("group offset of %s-%d: %+v, want %d", in, e.Partition, o, e.Offset)
		}
	})
}

// sameSet reports whether got holds exactly the strings of want, each as
// many times.
func sameSet(got, want []string) bool {
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// readValues reads topic from the start with an isolation level until it
// has want records, then keeps reading for a quiet second so that records
// beyond want (duplicates, aborted ones) show up too: by then every record
// is in the log, so they come in the same or the next fetches.
func readValues(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string, iso kgo.IsolationLevel, want int) []string {
	t.Helper()
	var out []string
	for _, r := range readRecords(t, ctx, c, topic, iso, want) {
		out = append(out, string(r.Value))
	}
	return out
}

// readRecords is readValues returning the records.
func readRecords(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string, iso kgo.IsolationLevel, want int) []*kgo.Record {
	t.Helper()
	cl := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(iso), kgo.FetchMaxWait(200*time.Millisecond))
	defer cl.Close()
	var out []*kgo.Record
	var quiet time.Time // when the quiet second ends, once want is reached
	for {
		if len(out) >= want && quiet.IsZero() {
			quiet = time.Now().Add(time.Second)
		}
		if !quiet.IsZero() && time.Now().After(quiet) {
			return out
		}
		var (
			pctx   context.Context
			cancel context.CancelFunc
		)
		if quiet.IsZero() {
			pctx, cancel = context.WithCancel(ctx)
		} else {
			pctx, cancel = context.WithDeadline(ctx, quiet)
		}
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			t.Fatalf("reading %s: %d of %d records before the deadline", topic, len(out), want)
		}
		fs.EachError(func(tp string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("fetch %s-%d: %v", tp, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
}
