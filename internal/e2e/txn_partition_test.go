package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/record"
	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// txnPartition drives the partition side of transactions with raw requests
// (through a kgo client, or a connection to one broker), playing the
// transaction coordinator: transactional Produce and WriteTxnMarkers.
// Versions are set for a plain connection; kgo picks its own.
type txnPartition struct {
	t     *testing.T
	ctx   context.Context
	cl    kmsg.Requestor
	topic string
}

func (x *txnPartition) initProducerID() int64 {
	x.t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.Version = 4
	resp, err := req.RequestWith(x.ctx, x.cl)
	if err != nil || resp.ErrorCode != 0 {
		x.t.Fatalf("InitProducerId: %v %v", err, kerr.ErrorForCode(resp.ErrorCode))
	}
	return resp.ProducerID
}

// batch builds one batch of values; pid < 0 is a plain batch.
func (x *txnPartition) batch(pid int64, seq int32, transactional, control bool, values ...string) []byte {
	x.t.Helper()
	b := record.NewBuilder(0, record.CodecNone)
	if pid >= 0 {
		b.SetProducer(pid, 0, seq)
	}
	b.SetTransactional(transactional)
	b.SetControl(control)
	for _, v := range values {
		key := []byte(nil)
		if control {
			key = record.ControlKey{Type: record.ControlCommit}.AppendTo(nil)
		}
		b.Append(time.Now().UnixMilli(), key, []byte(v), nil)
	}
	out, err := b.Build()
	if err != nil {
		x.t.Fatal(err)
	}
	return out
}

// produce sends one batch with acks=all and returns its error and offset.
func (x *txnPartition) produce(txnID *string, records []byte) (*kerr.Error, int64) {
	x.t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.Version = 8
	req.Acks, req.TimeoutMillis, req.TransactionID = -1, 10_000, txnID
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = x.topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = records
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(x.ctx, x.cl)
	if err != nil {
		x.t.Fatalf("Produce: %v", err)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		return kerr.ErrorForCode(p.ErrorCode).(*kerr.Error), -1
	}
	return nil, p.BaseOffset
}

func (x *txnPartition) mustProduce(txnID *string, records []byte) int64 {
	x.t.Helper()
	kerrv, off := x.produce(txnID, records)
	if kerrv != nil {
		x.t.Fatalf("Produce: %v", kerrv)
	}
	return off
}

// marker sends WriteTxnMarkers for partition 0 and returns its error.
func (x *txnPartition) marker(pid int64, coordinatorEpoch int32, commit bool) error {
	x.t.Helper()
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	req.Version = 1
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID, m.ProducerEpoch, m.Committed, m.CoordinatorEpoch = pid, 0, commit, coordinatorEpoch
	mt := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	mt.Topic, mt.Partitions = x.topic, []int32{0}
	m.Topics = append(m.Topics, mt)
	req.Markers = append(req.Markers, m)
	resp, err := req.RequestWith(x.ctx, x.cl)
	if err != nil {
		x.t.Fatalf("WriteTxnMarkers: %v", err)
	}
	return kerr.ErrorForCode(resp.Markers[0].Topics[0].Partitions[0].ErrorCode)
}

func (x *txnPartition) listLatest(isolation int8) int64 {
	x.t.Helper()
	off, err := x.listLatestE(isolation)
	if err != nil {
		x.t.Fatal(err)
	}
	return off
}

func (x *txnPartition) listLatestE(isolation int8) (int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.Version, req.IsolationLevel = 5, isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = x.topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Timestamp, rp.CurrentLeaderEpoch = -1, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(x.ctx, x.cl)
	if err != nil {
		return -1, fmt.Errorf("ListOffsets: %w", err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode); err != nil {
		return -1, fmt.Errorf("ListOffsets: %w", err)
	}
	return resp.Topics[0].Partitions[0].Offset, nil
}

// fetchCommitted is a read_committed Fetch from offset 0.
func (x *txnPartition) fetchCommitted() kmsg.FetchResponseTopicPartition {
	x.t.Helper()
	fetch := kmsg.NewPtrFetchRequest()
	fetch.Version = 11
	fetch.ReplicaID, fetch.MaxBytes, fetch.IsolationLevel = -1, 1<<20, 1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = x.topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 1 << 20
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	fresp, err := fetch.RequestWith(x.ctx, x.cl)
	if err != nil {
		x.t.Fatal(err)
	}
	return fresp.Topics[0].Partitions[0]
}

// consumeValues reads the topic from the start with the given isolation
// until the value "end" arrives.
func consumeValues(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string, iso kgo.IsolationLevel) []string {
	t.Helper()
	cl := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(iso), kgo.FetchMaxWait(200*time.Millisecond))
	defer cl.Close()
	var out []string
	for !slices.Contains(out, "end") {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %v before the deadline, no \"end\"", out)
		}
		fs.EachError(func(tp string, p int32, err error) { t.Fatalf("fetch %s-%d: %v", tp, p, err) })
		fs.EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	return out
}

// TestTransactionMarkersOnPartitions plays the transaction coordinator
// against a real broker: transactional Produce and WriteTxnMarkers, then
// checks what read_committed and read_uncommitted consumers see, the LSO in
// ListOffsets and Fetch, DescribeProducers, the fencing answers, and the
// markers and .txnindex entries in dump-log-segments.
func TestTransactionMarkersOnPartitions(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic = "txn-part"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	cl := c.Client()
	x := &txnPartition{t: t, ctx: ctx, cl: cl, topic: topic}
	a, b := x.initProducerID(), x.initProducerID()
	tid := kmsg.StringPtr("app-1")

	// Refusals: transactional records need a transactional id; only the
	// coordinator writes control records.
	if err, _ := x.produce(nil, x.batch(a, 0, true, false, "nope")); err != kerr.TransactionalIDAuthorizationFailed {
		t.Fatalf("transactional batch without transactional id: %v", err)
	}
	if err, _ := x.produce(tid, x.batch(a, 0, true, true, "\x00\x00\x00\x00\x00\x00")); err != kerr.InvalidRecord {
		t.Fatalf("control batch from a client: %v", err)
	}

	x.mustProduce(tid, x.batch(a, 0, true, false, "a1", "a2")) // 0-1: A opens
	x.mustProduce(tid, x.batch(b, 0, true, false, "b1"))       // 2: B opens
	x.mustProduce(nil, x.batch(-1, 0, false, false, "p1"))     // 3
	if err := x.marker(a, 5, false); err != nil {              // 4: A aborts
		t.Fatalf("ABORT marker: %v", err)
	}
	x.mustProduce(tid, x.batch(a, 2, true, false, "a3")) // 5
	if err := x.marker(a, 5, true); err != nil {         // 6: A commits
		t.Fatalf("COMMIT marker: %v", err)
	}
	if err := x.marker(b, 5, true); err != nil { // 7: B commits
		t.Fatalf("COMMIT marker: %v", err)
	}
	x.mustProduce(tid, x.batch(a, 3, true, false, "a4")) // 8: A opens again

	// Fencing: an older coordinator; a non-transactional write while A's
	// transaction is open.
	if err := x.marker(a, 4, true); err != kerr.TransactionCoordinatorFenced {
		t.Fatalf("marker from an older coordinator epoch: %v", err)
	}
	if err, _ := x.produce(nil, x.batch(a, 4, false, false, "x")); err != kerr.InvalidTxnState {
		t.Fatalf("non-transactional batch during A's transaction: %v", err)
	}

	if lso, hw := x.listLatest(1), x.listLatest(0); lso != 8 || hw != 9 {
		t.Fatalf("ListOffsets latest: read_committed %d, read_uncommitted %d; want 8 and 9", lso, hw)
	}
	// A raw read_committed Fetch: up to the LSO, with A's aborted
	// transaction.
	rp := x.fetchCommitted()
	if rp.ErrorCode != 0 || rp.LastStableOffset != 8 || rp.HighWatermark != 9 {
		t.Fatalf("read_committed fetch: error %d LSO %d HW %d", rp.ErrorCode, rp.LastStableOffset, rp.HighWatermark)
	}
	if len(rp.AbortedTransactions) != 1 || rp.AbortedTransactions[0].ProducerID != a || rp.AbortedTransactions[0].FirstOffset != 0 {
		t.Fatalf("aborted transactions %+v, want A from 0", rp.AbortedTransactions)
	}
	for it := record.NewBatchIter(rp.RecordBatches); it.Next(); {
		if h := it.Header(); h.LastOffset() >= 8 {
			t.Fatalf("read_committed fetch returned offset %d at or beyond the LSO", h.LastOffset())
		}
	}

	// DescribeProducers: A's open transaction, both coordinator epochs.
	dreq := kmsg.NewPtrDescribeProducersRequest()
	dt := kmsg.NewDescribeProducersRequestTopic()
	dt.Topic, dt.Partitions = topic, []int32{0}
	dreq.Topics = append(dreq.Topics, dt)
	dresp, err := dreq.RequestWith(ctx, cl)
	if err != nil || dresp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("DescribeProducers: %v %+v", err, dresp)
	}
	got := map[int64]kmsg.DescribeProducersResponseTopicPartitionActiveProducer{}
	for _, p := range dresp.Topics[0].Partitions[0].ActiveProducers {
		got[p.ProducerID] = p
	}
	if pa := got[a]; pa.CurrentTxnStartOffset != 8 || pa.CoordinatorEpoch != 5 || pa.LastSequence != 3 {
		t.Fatalf("producer A: %+v", pa)
	}
	if pb := got[b]; pb.CurrentTxnStartOffset != -1 || pb.CoordinatorEpoch != 5 || pb.LastSequence != 0 {
		t.Fatalf("producer B: %+v", pb)
	}

	if err := x.marker(a, 6, true); err != nil { // 9: A commits
		t.Fatal(err)
	}
	x.mustProduce(nil, x.batch(-1, 0, false, false, "end")) // 10

	committed := consumeValues(t, ctx, c, topic, kgo.ReadCommitted())
	if want := []string{"b1", "p1", "a3", "a4", "end"}; !slices.Equal(committed, want) {
		t.Fatalf("read_committed consumer saw %v, want %v", committed, want)
	}
	uncommitted := consumeValues(t, ctx, c, topic, kgo.ReadUncommitted())
	if want := []string{"a1", "a2", "b1", "p1", "a3", "a4", "end"}; !slices.Equal(uncommitted, want) {
		t.Fatalf("read_uncommitted consumer saw %v, want %v", uncommitted, want)
	}

	// On disk, as Kafka's dump-log-segments prints it.
	dir := filepath.Join(c.Brokers()[0].DataDir(), topic+"-0")
	seg := filepath.Join(dir, "00000000000000000000")
	out, err := exec.Command(testcluster.Binary(t), "dump-log-segments", "--deep-iteration", "--files", seg+".log,"+seg+".txnindex").CombinedOutput()
	if err != nil {
		t.Fatalf("dump-log-segments: %v\n%s", err, out)
	}
	dump := string(out)
	for _, want := range []string{
		"baseOffset: 4 lastOffset: 4 count: 1 baseSequence: -1 lastSequence: -1 producerId: " + fmt.Sprint(a) + " producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: true",
		"| offset: 4 CreateTime:",
		" endTxnMarker: ABORT coordinatorEpoch: 5\n",
		" endTxnMarker: COMMIT coordinatorEpoch: 5\n",
		" endTxnMarker: COMMIT coordinatorEpoch: 6\n",
		// A's abort: B's transaction (from 2) was the earliest other one open.
		fmt.Sprintf("version: 0 producerId: %d firstOffset: 0 lastOffset: 4 lastStableOffset: 2\n", a),
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump-log-segments lacks %q:\n%s", want, dump)
		}
	}
}

// TestTransactionLSOAcrossLeaderFailover: followers keep the leader's
// transactions, so after the leader is killed the new leader still holds
// the LSO at the open transaction, lists the aborted one to read_committed
// readers, accepts the open transaction's marker, and its .txnindex equals
// the other replica's byte for byte.
func TestTransactionLSOAcrossLeaderFailover(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	const topic = "txn-failover"
	if _, err := c.Admin().CreateTopic(ctx, 1, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, 1)
	leader := mustLeader(t, ctx, cl, topic)
	conn := func(id int32) *txnPartition {
		wc, err := wire.Dial(ctx, c.Broker(id).Addr(), "txn-failover")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wc.Close() })
		return &txnPartition{t: t, ctx: ctx, cl: wc, topic: topic}
	}
	x := conn(leader)
	a, b := x.initProducerID(), x.initProducerID()
	tid := kmsg.StringPtr("app-2")
	x.mustProduce(tid, x.batch(a, 0, true, false, "a1"))       // 0: A opens
	x.mustProduce(tid, x.batch(b, 0, true, false, "b1", "b2")) // 1-2: B opens
	if err := x.marker(b, 1, false); err != nil {              // 3: B aborts
		t.Fatal(err)
	}
	x.mustProduce(nil, x.batch(-1, 0, false, false, "p")) // 4
	if lso := x.listLatest(1); lso != 0 {
		t.Fatalf("LSO on the leader %d, want 0 (A open)", lso)
	}
	waitFullISR(t, ctx, cl, topic, 1)

	c.Broker(leader).Kill()
	var next int32
	testwait.For(t, 60*time.Second, "a new leader", func() (bool, string) {
		l, _ := isrOf(t, ctx, cl, topic)
		next = l
		return l >= 0 && l != leader, fmt.Sprint("leader ", l)
	})
	y := conn(next)
	testwait.For(t, 30*time.Second, "the new leader's HW at the log end", func() (bool, string) {
		hw, err := y.listLatestE(0)
		return err == nil && hw == 5, fmt.Sprint(hw, err)
	})
	if lso := y.listLatest(1); lso != 0 {
		t.Fatalf("LSO on the new leader %d, want 0: it lost A's open transaction", lso)
	}
	if err := y.marker(a, 2, true); err != nil { // 5: A commits
		t.Fatalf("COMMIT on the new leader: %v", err)
	}
	y.mustProduce(nil, y.batch(-1, 0, false, false, "end")) // 6
	rp := y.fetchCommitted()
	if rp.ErrorCode != 0 || rp.LastStableOffset != 7 || len(rp.AbortedTransactions) != 1 || rp.AbortedTransactions[0].ProducerID != b {
		t.Fatalf("read_committed fetch on the new leader: error %d LSO %d aborted %+v", rp.ErrorCode, rp.LastStableOffset, rp.AbortedTransactions)
	}
	committed := consumeValues(t, ctx, c, topic, kgo.ReadCommitted())
	if want := []string{"a1", "p", "end"}; !slices.Equal(committed, want) {
		t.Fatalf("read_committed consumer saw %v, want %v", committed, want)
	}

	// Both live replicas indexed B's abort alike (A was open from 0).
	var indexes []string
	for _, br := range c.Brokers() {
		if br.ID == leader {
			continue
		}
		path := filepath.Join(br.DataDir(), topic+"-0", "00000000000000000000.txnindex")
		testwait.For(t, 30*time.Second, "broker "+fmt.Sprint(br.ID)+"'s txnindex", func() (bool, string) {
			_, err := os.Stat(path)
			return err == nil, fmt.Sprint(err)
		})
		out, err := exec.Command(testcluster.Binary(t), "dump-log-segments", "--files", path).CombinedOutput()
		if err != nil {
			t.Fatalf("dump-log-segments: %v\n%s", err, out)
		}
		indexes = append(indexes, strings.SplitN(string(out), "\n", 2)[1])
	}
	want := fmt.Sprintf("version: 0 producerId: %d firstOffset: 1 lastOffset: 3 lastStableOffset: 0\n", b)
	if len(indexes) != 2 || indexes[0] != want || indexes[1] != want {
		t.Fatalf("txnindex dumps %q, want %q on both", indexes, want)
	}
}
