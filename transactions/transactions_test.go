package transactions

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

// TestPrintTable: Kafka's prettyPrintTable pads each cell to its column's
// widest cell and ends every cell, the last included, with a tab.
func TestPrintTable(t *testing.T) {
	var b bytes.Buffer
	printTable(&b, []string{"A", "Longer", "C"}, [][]string{{"wide-cell", "x", ""}, {"y", "z", "é"}})
	want := "A        \tLonger\tC\t\n" +
		"wide-cell\tx     \t \t\n" +
		"y        \tz     \té\t\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// fixture: one kfake broker, topic "orders" with two partitions, an open
// transaction of "app-open" on partition 0 and a committed one of
// "app-done" on partition 1.
type fixture struct {
	cl               *kgo.Client
	openPID, donePID int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	ctx := clitest.Context(t, 30*time.Second)
	f := &fixture{cl: clitest.Client(t, addrs)}
	produce := func(id string, partition int32, commit bool) int64 {
		p := clitest.Client(t, addrs, kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: partition, Value: []byte(id)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Fatal(err)
			}
		}
		pid, _, _ := p.ProducerID(ctx)
		return pid
	}
	f.openPID = produce("app-open", 0, false)
	f.donePID = produce("app-done", 1, true)
	return f
}

func (f *fixture) run(t *testing.T, o Options) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(clitest.Context(t, 30*time.Second), f.cl, o, &out, &errOut)
	return out.String(), errOut.String(), err
}

// cells splits a table's lines into trimmed cells.
func cells(t *testing.T, out string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasSuffix(line, "\t") {
			t.Fatalf("line %q does not end with a tab", line)
		}
		var row []string
		for _, c := range strings.Split(strings.TrimSuffix(line, "\t"), "\t") {
			row = append(row, strings.TrimRight(c, " "))
		}
		rows = append(rows, row)
	}
	return rows
}

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

func TestListDescribeAndProducers(t *testing.T) {
	f := newFixture(t)
	out, _, err := f.run(t, Options{Command: CommandList})
	if err != nil {
		t.Fatal(err)
	}
	// The states are kfake's to decide (it ends transactions as KIP-890
	// brokers do); the table is ours.
	adm := kadm.NewClient(f.cl)
	listed, err := adm.ListTransactions(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := cells(t, out)
	want := [][]string{
		{"TransactionalId", "Coordinator", "ProducerId", "TransactionState"},
		{"app-done", "0", strconv.FormatInt(f.donePID, 10), listed["app-done"].State},
		{"app-open", "0", strconv.FormatInt(f.openPID, 10), "Ongoing"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("list:\n%s", out)
	}

	d, err := adm.DescribeTransactions(context.Background(), "app-open")
	if err != nil {
		t.Fatal(err)
	}
	start := d["app-open"].StartTimestamp
	now := time.UnixMilli(start + 90_000)
	out, _, err = f.run(t, Options{Command: CommandDescribe, TransactionalID: "app-open", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	got = cells(t, out)
	want = [][]string{
		{"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"},
		{"0", "app-open", strconv.FormatInt(f.openPID, 10), "0", "Ongoing", strconv.Itoa(int(d["app-open"].TimeoutMillis)), strconv.FormatInt(start, 10), "90000", "orders-0"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("describe:\n%s", out)
	}

	_, stderr, err := f.run(t, Options{Command: CommandDescribe, TransactionalID: "nope"})
	var ce *cliutil.CommandError
	if !errors.As(err, &ce) || stderr != "Failed to describe transaction state of transactional-id `nope`: The transactionalId could not be found.. Enable debug logging for additional detail.\n" {
		t.Fatalf("describe unknown: %v %q", err, stderr)
	}

	out, _, err = f.run(t, Options{Command: CommandDescribeProducers, Topic: "orders", Partition: i32(0)})
	if err != nil {
		t.Fatal(err)
	}
	got = cells(t, out)
	if len(got) != 2 || !slices.Equal(got[0], producersHeaders) || got[1][0] != strconv.FormatInt(f.openPID, 10) || got[1][5] != "0" || got[1][3] != "0" {
		t.Fatalf("describe-producers orders-0:\n%s", out)
	}
	out, _, err = f.run(t, Options{Command: CommandDescribeProducers, Topic: "orders", Partition: i32(1), BrokerID: i32(0)})
	if err != nil {
		t.Fatal(err)
	}
	// Whether a producer whose transaction ended stays listed is the
	// broker's business (Kafka keeps it, kfake drops it); it has no start.
	got = cells(t, out)
	if !slices.Equal(got[0], producersHeaders) {
		t.Fatalf("describe-producers orders-1 on broker 0:\n%s", out)
	}
	for _, row := range got[1:] {
		if row[5] != "None" {
			t.Fatalf("describe-producers orders-1 on broker 0:\n%s", out)
		}
	}
}

func TestFindHangingAndAbort(t *testing.T) {
	f := newFixture(t)
	later := func() time.Time { return time.Now().Add(20 * time.Minute) }
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Command: CommandFindHanging}, "The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search\n"},
		{Options{Command: CommandFindHanging, BrokerID: i32(0), Partition: i32(0)}, "The --partition argument requires --topic to be provided\n"},
		{Options{Command: CommandAbort, Topic: "orders", Partition: i32(0)}, "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)\n"},
		{Options{Command: CommandAbort, Topic: "orders", Partition: i32(0), ProducerID: i64(1)}, "Missing required argument --producer-epoch\n"},
		{Options{Command: CommandAbort, Topic: "orders", Partition: i32(0), StartOffset: i64(5)}, "Could not find any open transactions starting at offset 5 on partition orders-0\n"},
	} {
		_, stderr, err := f.run(t, tc.o)
		var ce *cliutil.CommandError
		if !errors.As(err, &ce) || stderr != tc.want {
			t.Errorf("%+v: %v, stderr %q, want %q", tc.o, err, stderr, tc.want)
		}
	}
	// The open transaction is old enough but its coordinator knows it
	// includes orders-0: not hanging.
	for _, o := range []Options{
		{Command: CommandFindHanging, Topic: "orders", MaxTransactionTimeout: 15, Now: later},
		{Command: CommandFindHanging, BrokerID: i32(0), MaxTransactionTimeout: 15, Now: later},
	} {
		out, _, err := f.run(t, o)
		if err != nil || len(cells(t, out)) != 1 {
			t.Fatalf("find-hanging %+v: %v\n%s", o, err, out)
		}
	}
	// An abort by start offset writes an ABORT marker at the leader
	// (kfake does not update the producer state it describes, so the
	// marker is seen as the log end offset moving past the one record).
	adm := kadm.NewClient(f.cl)
	endOf := func() int64 {
		ends, err := adm.ListEndOffsets(context.Background(), "orders")
		if err != nil {
			t.Fatal(err)
		}
		o, _ := ends.Lookup("orders", 0)
		return o.Offset
	}
	if before := endOf(); before != 1 {
		t.Fatalf("end offset %d before the abort, want 1", before)
	}
	if _, stderr, err := f.run(t, Options{Command: CommandAbort, Topic: "orders", Partition: i32(0), StartOffset: i64(0)}); err != nil {
		t.Fatalf("abort: %v %s", err, stderr)
	}
	if after := endOf(); after != 2 {
		t.Fatalf("end offset %d after the abort, want 2 (the marker)", after)
	}
	_, stderr, err := f.run(t, Options{Command: CommandAbort, Topic: "nope", Partition: i32(0), ProducerID: i64(f.openPID), ProducerEpoch: new(int16), CoordinatorEpoch: i32(-1)})
	if err == nil || !strings.HasPrefix(stderr, "Failed to abort transaction AbortTransactionSpec(topicPartition=nope-0, producerId="+strconv.FormatInt(f.openPID, 10)+", producerEpoch=0, coordinatorEpoch=0): ") {
		t.Fatalf("abort on an unknown partition: %v %q", err, stderr)
	}
}

func TestHangingClassification(t *testing.T) {
	tx := func(topic string, p int32, pid int64) openTxn {
		return openTxn{topicPartition{topic, p}, kmsg.DescribeProducersResponseTopicPartitionActiveProducer{ProducerID: pid, CurrentTxnStartOffset: 3}}
	}
	candidates := []openTxn{tx("t", 0, 1), tx("t", 1, 2), tx("t", 2, 3), tx("t", 3, 4)}
	idOf := map[int64]string{2: "known", 3: "moved-on", 4: "gone"}
	descs := kadm.DescribedTransactions{
		"known":    {TxnID: "known", Topics: kadm.TopicsSet{"t": {1: {}}}},
		"moved-on": {TxnID: "moved-on", Topics: kadm.TopicsSet{"t": {9: {}}}},
		"gone":     {TxnID: "gone", Err: kerr.TransactionalIDNotFound},
	}
	var got []int64
	for _, h := range hangingOf(candidates, idOf, descs) {
		got = append(got, h.p.ProducerID)
	}
	if !slices.Equal(got, []int64{1, 3, 4}) {
		t.Fatalf("hanging producers %v, want 1 (no id), 3 (partition not in its transaction), 4 (id gone)", got)
	}
}
