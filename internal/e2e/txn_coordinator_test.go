package e2e

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/coordlog"
	"kafgo/broker/group"
	"kafgo/broker/record"
	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// txnPartitions is the test cluster's transaction.state.log.num.partitions.
const txnPartitions = 5

// txnBroker sends transaction requests to broker 1 (the only one: the
// coordinator of everything) at exactly the version asked (kgo would pick
// its own), over the project's wire client.
type txnBroker struct {
	t  *testing.T
	cl *wire.Client
}

func (tb txnBroker) do(req kmsg.Request, version int16) kmsg.Response {
	tb.t.Helper()
	req.SetVersion(version)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := tb.cl.Request(ctx, req)
	if err != nil {
		tb.t.Fatalf("%T v%d: %v", req, version, err)
	}
	return resp
}

func (tb txnBroker) init(id string, timeoutMs int32, version int16, pid int64, epoch int16) *kmsg.InitProducerIDResponse {
	tb.t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID, req.TransactionTimeoutMillis, req.ProducerID, req.ProducerEpoch = &id, timeoutMs, pid, epoch
	return tb.do(req, version).(*kmsg.InitProducerIDResponse)
}

// mustInit inits id (v4), waiting out a loading coordinator.
func (tb txnBroker) mustInit(id string, timeoutMs int32) (int64, int16) {
	tb.t.Helper()
	var r *kmsg.InitProducerIDResponse
	testwait.For(tb.t, 30*time.Second, "InitProducerId("+id+")", func() (bool, string) {
		r = tb.init(id, timeoutMs, 4, -1, -1)
		return r.ErrorCode == 0, fmt.Sprint(kerr.ErrorForCode(r.ErrorCode))
	})
	return r.ProducerID, r.ProducerEpoch
}

func (tb txnBroker) addPartitions(id string, pid int64, epoch int16, version int16, topic string, partitions ...int32) []int16 {
	tb.t.Helper()
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = id, pid, epoch
	rt := kmsg.NewAddPartitionsToTxnRequestTopic()
	rt.Topic, rt.Partitions = topic, partitions
	req.Topics = append(req.Topics, rt)
	resp := tb.do(req, version).(*kmsg.AddPartitionsToTxnResponse)
	var codes []int16
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			codes = append(codes, p.ErrorCode)
		}
	}
	return codes
}

func (tb txnBroker) endTxn(id string, pid int64, epoch int16, version int16, commit bool) int16 {
	tb.t.Helper()
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
	return tb.do(req, version).(*kmsg.EndTxnResponse).ErrorCode
}

// fetchOffset is OffsetFetch v7 of one partition: the offset and the
// partition's error.
func (tb txnBroker) fetchOffset(groupID, topic string, partition int32, requireStable bool) (int64, int16) {
	tb.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group, req.RequireStable = groupID, requireStable
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{partition}
	req.Topics = append(req.Topics, rt)
	resp := tb.do(req, 7).(*kmsg.OffsetFetchResponse)
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		tb.t.Fatalf("OffsetFetch: %+v", resp)
	}
	p := resp.Topics[0].Partitions[0]
	return p.Offset, p.ErrorCode
}

// describeRow runs kafgo transactions describe and returns its one row.
func describeRow(t *testing.T, bootstrap, id string) []string {
	t.Helper()
	out := kafgo(t, "", "transactions", "--bootstrap-server", bootstrap, "describe", "--transactional-id", id)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "CoordinatorId\tTransactionalId") {
		t.Fatalf("describe %s:\n%s", id, out)
	}
	var row []string
	for _, cell := range strings.Split(strings.TrimSuffix(lines[1], "\t"), "\t") {
		row = append(row, strings.TrimRight(cell, " "))
	}
	return row
}

// serves reports whether the broker serves an API key.
func (tb txnBroker) serves(key int16) bool {
	resp := tb.do(kmsg.NewPtrApiVersionsRequest(), 3).(*kmsg.ApiVersionsResponse)
	return slices.ContainsFunc(resp.ApiKeys, func(k kmsg.ApiVersionsResponseApiKey) bool { return k.ApiKey == key })
}

// servesMarkers reports whether the broker serves WriteTxnMarkers (the
// partition side of transactions). Without it the coordinator's marker
// phase cannot finish: transactions stay in PrepareCommit/PrepareAbort.
func servesMarkers(t *testing.T, tb txnBroker) bool { return tb.serves(27) }

// TestTxnCoordinator drives the transaction coordinator of one embedded
// broker over the wire: __transaction_state is created on the first
// FindCoordinator; InitProducerId bumps epochs and fences (KIP-360 and
// KIP-588 version mapping); a transaction with partitions and a group's
// offsets is committed, its offsets pending until the commit marker; a
// zombie is fenced; a transaction past its timeout is aborted; the state
// survives a restart; `kafgo transactions` and `kafgo dump-log-segments
// --transaction-log-decoder` show it.
//
// The markers are written by the partitions' WriteTxnMarkers handler. A
// broker without it leaves ended transactions in PrepareCommit /
// PrepareAbort (the coordinator keeps retrying); the checks that need the
// markers written (Complete* states, offsets visible after the commit, a
// new epoch after a fence) run when the broker serves it.
func TestTxnCoordinator(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"transaction.state.log.num.partitions":                        fmt.Sprint(txnPartitions),
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "200",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl := c.Client()
	adm := kadm.NewClient(cl)
	const topic, groupID, id = "txn-t", "e2e-group", "e2e-txn"
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	tb := dialTxnBroker(t, ctx, c.Addrs()[0])
	markers := servesMarkers(t, tb)
	t.Logf("broker serves WriteTxnMarkers: %v", markers)

	// FindCoordinator(TRANSACTION) creates __transaction_state (and the
	// group's, as a transactional consumer's client does, __consumer_offsets).
	for _, k := range []struct {
		key string
		typ int8
	}{{id, 1}, {groupID, 0}} {
		testwait.For(t, 30*time.Second, "the coordinator of "+k.key, func() (bool, string) {
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.CoordinatorKey, req.CoordinatorType = k.key, k.typ
			r := tb.do(req, 3).(*kmsg.FindCoordinatorResponse)
			return r.ErrorCode == 0 && r.NodeID == 1, fmt.Sprint(kerr.ErrorForCode(r.ErrorCode))
		})
	}
	cfgs, err := adm.DescribeTopicConfigs(ctx, "__transaction_state")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cleanup.policy": "compact", "min.insync.replicas": "1", "compression.type": "uncompressed",
		"segment.bytes": "104857600", "unclean.leader.election.enable": "false"}
	for _, cfg := range cfgs[0].Configs {
		if w, ok := want[cfg.Key]; ok && (cfg.Value == nil || *cfg.Value != w) {
			t.Errorf("__transaction_state %s = %v, want %s", cfg.Key, cfg.MaybeValue(), w)
		}
	}
	if td, err := adm.ListTopicsWithInternal(ctx, "__transaction_state"); err != nil || len(td["__transaction_state"].Partitions) != txnPartitions {
		t.Fatalf("__transaction_state partitions: %v %v", td, err)
	}

	// InitProducerId: a producer id, then epoch bumps (KIP-360 with the
	// current id and epoch); a stale epoch is fenced, as
	// INVALID_PRODUCER_EPOCH before v4.
	pid, epoch := tb.mustInit(id, 60000)
	if epoch != 0 {
		t.Fatalf("first init: epoch %d", epoch)
	}
	if r := tb.init(id, 60000, 4, -1, -1); r.ErrorCode != 0 || r.ProducerID != pid || r.ProducerEpoch != 1 {
		t.Fatalf("second init: %+v", r)
	}
	if r := tb.init(id, 60000, 3, pid, 1); r.ErrorCode != 0 || r.ProducerEpoch != 2 {
		t.Fatalf("KIP-360 init: %+v", r)
	}
	epoch = 2
	if r := tb.init(id, 60000, 3, pid, 0); r.ErrorCode != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("v3 init with a stale epoch: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if r := tb.init(id, 60000, 4, pid, 0); r.ErrorCode != kerr.ProducerFenced.Code {
		t.Fatalf("v4 init with a stale epoch: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if r := tb.init(id, 900001, 4, -1, -1); r.ErrorCode != kerr.InvalidTransactionTimeout.Code {
		t.Fatalf("init over transaction.max.timeout.ms: %v", kerr.ErrorForCode(r.ErrorCode))
	}

	// A transaction over two partitions and the group's offsets.
	if codes := tb.addPartitions(id, pid, epoch, 3, "no-such-topic", 0); !slices.Equal(codes, []int16{kerr.UnknownTopicOrPartition.Code}) {
		t.Fatalf("AddPartitionsToTxn of an unknown topic: %v", codes)
	}
	if codes := tb.addPartitions(id, pid, epoch-1, 1, topic, 0); !slices.Equal(codes, []int16{kerr.InvalidProducerEpoch.Code}) {
		t.Fatalf("AddPartitionsToTxn v1, stale epoch: %v", codes)
	}
	if codes := tb.addPartitions(id, pid, epoch, 3, topic, 0, 1); !slices.Equal(codes, []int16{0, 0}) {
		t.Fatalf("AddPartitionsToTxn: %v", codes)
	}
	ao := kmsg.NewPtrAddOffsetsToTxnRequest()
	ao.TransactionalID, ao.ProducerID, ao.ProducerEpoch, ao.Group = id, pid, epoch, groupID
	if r := tb.do(ao, 3).(*kmsg.AddOffsetsToTxnResponse); r.ErrorCode != 0 {
		t.Fatalf("AddOffsetsToTxn: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	offsetsTP := fmt.Sprintf("%s-%d", group.OffsetsTopic, coordlog.PartitionFor(groupID, 50))
	var tc *kmsg.TxnOffsetCommitResponse
	testwait.For(t, 30*time.Second, "TxnOffsetCommit", func() (bool, string) {
		req := kmsg.NewPtrTxnOffsetCommitRequest()
		req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = id, groupID, pid, epoch
		req.Generation, req.MemberID = -1, ""
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = 0, 5, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		tc = tb.do(req, 3).(*kmsg.TxnOffsetCommitResponse)
		code := tc.Topics[0].Partitions[0].ErrorCode
		return code == 0, fmt.Sprint(kerr.ErrorForCode(code)) // the group coordinator may still load
	})
	if off, code := tb.fetchOffset(groupID, topic, 0, true); code != kerr.UnstableOffsetCommit.Code || off != -1 {
		t.Fatalf("require_stable fetch of a pending transactional offset: %d %v", off, kerr.ErrorForCode(code))
	}
	if off, code := tb.fetchOffset(groupID, topic, 0, false); code != 0 || off != -1 {
		t.Fatalf("a pending transactional offset is visible: %d %v", off, kerr.ErrorForCode(code))
	}
	partitions := offsetsTP + ",txn-t-0,txn-t-1"
	if row := describeRow(t, c.Bootstrap(), id); !slices.Equal([]string{row[0], row[1], row[2], row[3], row[4], row[5], row[8]},
		[]string{"1", id, fmt.Sprint(pid), "2", "Ongoing", "60000", partitions}) || row[6] == "None" {
		t.Fatalf("describe: %v", row)
	}

	// EndTxn(commit): PrepareCommit is logged and answered; the markers
	// complete it and make the offset visible.
	if code := tb.endTxn(id, pid, epoch, 3, true); code != 0 {
		t.Fatalf("EndTxn: %v", kerr.ErrorForCode(code))
	}
	committedState := "PrepareCommit"
	if markers {
		committedState = "CompleteCommit"
		testwait.For(t, 30*time.Second, "the commit to complete", func() (bool, string) {
			row := describeRow(t, c.Bootstrap(), id)
			return row[4] == "CompleteCommit" && row[8] == "", fmt.Sprint(row)
		})
		if off, code := tb.fetchOffset(groupID, topic, 0, true); code != 0 || off != 5 {
			t.Fatalf("the committed transaction's offset: %d %v", off, kerr.ErrorForCode(code))
		}
	} else {
		if row := describeRow(t, c.Bootstrap(), id); row[4] != "PrepareCommit" || row[8] != partitions {
			t.Fatalf("describe in the marker phase: %v", row)
		}
		if code := tb.endTxn(id, pid, epoch, 3, true); code != kerr.ConcurrentTransactions.Code {
			t.Fatalf("EndTxn retried during the marker phase: %v", kerr.ErrorForCode(code))
		}
		if off, code := tb.fetchOffset(groupID, topic, 0, true); code != kerr.UnstableOffsetCommit.Code || off != -1 {
			t.Fatalf("the offset became visible without its marker: %d %v", off, kerr.ErrorForCode(code))
		}
	}

	// A zombie: a second instance with the same transactional id fences
	// the first, whose open transaction is aborted with a bumped epoch.
	zpid, zepoch := tb.mustInit("zombie", 60000)
	if codes := tb.addPartitions("zombie", zpid, zepoch, 3, topic, 1); !slices.Equal(codes, []int16{0}) {
		t.Fatalf("zombie AddPartitionsToTxn: %v", codes)
	}
	if r := tb.init("zombie", 60000, 4, -1, -1); r.ErrorCode != kerr.ConcurrentTransactions.Code {
		t.Fatalf("the new instance's init: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if code := tb.endTxn("zombie", zpid, zepoch, 3, true); code != kerr.ProducerFenced.Code {
		t.Fatalf("the zombie's commit: %v", kerr.ErrorForCode(code))
	}
	if codes := tb.addPartitions("zombie", zpid, zepoch, 3, topic, 0); !slices.Equal(codes, []int16{kerr.ProducerFenced.Code}) {
		t.Fatalf("the zombie's AddPartitionsToTxn: %v", codes)
	}
	if row := describeRow(t, c.Bootstrap(), "zombie"); row[3] != "1" || (row[4] != "PrepareAbort" && row[4] != "CompleteAbort") {
		t.Fatalf("the fenced transaction: %v", row)
	}
	if markers {
		if _, e := tb.mustInit("zombie", 60000); e != 2 {
			t.Fatalf("the new instance got epoch %d, want 2", e)
		}
	}

	// franz-go's transactional producer: a second client with the same
	// transactional id fences the first.
	first := c.Client(kgo.TransactionalID("kgo-txn"), kgo.DefaultProduceTopic(topic))
	if _, e, err := first.ProducerID(ctx); err != nil || e != 0 {
		t.Fatalf("kgo init: epoch %d, %v", e, err)
	}
	second := c.Client(kgo.TransactionalID("kgo-txn"), kgo.DefaultProduceTopic(topic))
	if _, e, err := second.ProducerID(ctx); err != nil || e != 1 {
		t.Fatalf("kgo init of the second instance: epoch %d, %v", e, err)
	}
	if err := first.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	err = first.ProduceSync(ctx, &kgo.Record{Value: []byte("from a zombie")}).FirstErr()
	if !errors.Is(err, kerr.ProducerFenced) && !errors.Is(err, kerr.InvalidProducerEpoch) {
		t.Fatalf("the fenced kgo producer's produce: %v", err)
	}

	// A transaction left open past its timeout is aborted by the
	// coordinator, its epoch bumped: the producer is fenced.
	spid, sepoch := tb.mustInit("slow", 1000)
	if codes := tb.addPartitions("slow", spid, sepoch, 3, topic, 0); !slices.Equal(codes, []int16{0}) {
		t.Fatalf("slow AddPartitionsToTxn: %v", codes)
	}
	testwait.For(t, 30*time.Second, "the timed-out transaction to be aborted", func() (bool, string) {
		row := describeRow(t, c.Bootstrap(), "slow")
		return row[3] == "1" && (row[4] == "PrepareAbort" || row[4] == "CompleteAbort"), fmt.Sprint(row)
	})
	if code := tb.endTxn("slow", spid, sepoch, 3, true); code != kerr.ProducerFenced.Code {
		t.Fatalf("the timed-out producer's commit: %v", kerr.ErrorForCode(code))
	}

	// The log, as Kafka's decoder prints it.
	seg := filepath.Join(c.Broker(1).DataDir(), fmt.Sprintf("__transaction_state-%d", coordlog.PartitionFor(id, txnPartitions)), "00000000000000000000.log")
	dump := kafgo(t, "", "dump-log-segments", "--transaction-log-decoder", "--files", seg)
	re := regexp.MustCompile(`key: transaction_metadata::transactionalId=` + id + ` payload: producerId:(\d+),producerEpoch:(\d+),state=(\w+),partitions=\[([^\]]*)\],txnLastUpdateTimestamp=\d+,txnTimeoutMs=60000\n`)
	var states []string
	for _, m := range re.FindAllStringSubmatch(dump, -1) {
		if m[1] != fmt.Sprint(pid) {
			t.Fatalf("producer id %s in %q", m[1], m[0])
		}
		states = append(states, m[3]+"/"+m[2]+"/"+m[4])
	}
	wantStates := []string{"Empty/0/", "Empty/1/", "Empty/2/", "Ongoing/2/txn-t-0,txn-t-1", "Ongoing/2/" + partitions, "PrepareCommit/2/" + partitions}
	if markers {
		wantStates = append(wantStates, "CompleteCommit/2/")
	}
	if !slices.Equal(states, wantStates) {
		t.Fatalf("logged states %v, want %v\n%s", states, wantStates, dump)
	}

	if tb.serves(61) {
		hangingTransaction(t, c, tb, topic)
	}

	// The coordinator loads its state back after a restart.
	before := kafgo(t, "", "transactions", "--bootstrap-server", c.Bootstrap(), "list")
	brk := c.Brokers()[0]
	brk.Stop()
	brk.Start()
	c.WaitForBrokers(time.Minute)
	testwait.For(t, 60*time.Second, "the transactions to load", func() (bool, string) {
		out, errOut := kafgo2(t, "", "transactions", "--bootstrap-server", c.Bootstrap(), "list")
		return out == before, out + errOut
	})
	for _, want := range []string{"e2e-txn", "zombie", "slow", "kgo-txn"} {
		if !strings.Contains(before, "\n"+want+" ") {
			t.Fatalf("list lacks %s:\n%s", want, before)
		}
	}
	if row := describeRow(t, c.Bootstrap(), id); row[4] != committedState || row[2] != fmt.Sprint(pid) || row[3] != "2" {
		t.Fatalf("after the restart: %v", row)
	}
}

// txnCoordinator waits until id has a coordinator other than not and
// returns its id and a wire client to it.
func txnCoordinator(t *testing.T, c *testcluster.Cluster, id string, not int32) (int32, txnBroker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var node int32
	testwait.For(t, 90*time.Second, "the coordinator of "+id, func() (bool, string) {
		r := c.Admin().FindTxnCoordinators(ctx, id)[id]
		node = r.NodeID
		return r.Err == nil && r.NodeID != not, fmt.Sprintf("node %d err %v", r.NodeID, r.Err)
	})
	return node, dialTxnBroker(t, ctx, c.Broker(node).Addr())
}

// dialTxnBroker connects a txnBroker to the broker at addr, closed when
// the test ends.
func dialTxnBroker(t *testing.T, ctx context.Context, addr string) txnBroker {
	t.Helper()
	wc, err := wire.Dial(ctx, addr, "txn-e2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wc.Close() })
	return txnBroker{t: t, cl: wc}
}

// TestTxnCoordinatorFailover: in a three-broker ZooKeeper cluster the
// coordinator of a transaction that logged PrepareCommit is killed; the
// leader of its __transaction_state partition after it loads the
// transaction and resumes its marker phase with its own coordinator epoch.
func TestTxnCoordinatorFailover(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"transaction.state.log.num.partitions": fmt.Sprint(txnPartitions),
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const topic, id = "txn-f", "f-txn"
	if _, err := c.Admin().CreateTopic(ctx, 3, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	old, tb := txnCoordinator(t, c, id, -1)
	markers := servesMarkers(t, tb)
	pid, epoch := tb.mustInit(id, 60000)
	testwait.For(t, 30*time.Second, "AddPartitionsToTxn", func() (bool, string) {
		codes := tb.addPartitions(id, pid, epoch, 3, topic, 0, 1, 2)
		return slices.Equal(codes, []int16{0, 0, 0}), fmt.Sprint(codes) // the topic's metadata may still spread
	})
	if code := tb.endTxn(id, pid, epoch, 3, true); code != 0 {
		t.Fatalf("EndTxn: %v", kerr.ErrorForCode(code))
	}
	c.Broker(old).Kill()
	node, tb2 := txnCoordinator(t, c, id, old)
	want := "PrepareCommit"
	if markers {
		want = "CompleteCommit"
	}
	testwait.For(t, 60*time.Second, "the new coordinator to have the transaction", func() (bool, string) {
		out, errOut := kafgo2(t, "", "transactions", "--bootstrap-server", c.Broker(node).Addr(), "describe", "--transactional-id", id)
		return strings.Contains(out, fmt.Sprintf("\t%d", pid)) && strings.Contains(out, want), out + errOut
	})
	row := describeRow(t, c.Broker(node).Addr(), id) // not the dead broker's address
	if row[0] != fmt.Sprint(node) || row[2] != fmt.Sprint(pid) || row[3] != fmt.Sprint(epoch) {
		t.Fatalf("after failover: %v", row)
	}
	resumed := fmt.Sprintf("partition=%d transactional_ids=1 resumed=1", coordlog.PartitionFor(id, txnPartitions))
	if log := c.Broker(node).LogTail(400); !strings.Contains(log, resumed) {
		t.Fatalf("the new coordinator did not resume the transaction (%s):\n%s", resumed, log)
	}
	if markers {
		if _, e := tb2.mustInit(id, 60000); e != epoch+1 {
			t.Fatalf("init after the failover: epoch %d", e)
		}
	} else if r := tb2.init(id, 60000, 4, -1, -1); r.ErrorCode != kerr.ConcurrentTransactions.Code {
		t.Fatalf("init during the resumed marker phase: %v", kerr.ErrorForCode(r.ErrorCode))
	}
}

// hangingTransaction: a transactional batch written to a partition by a
// producer no coordinator knows (as a producer whose transaction timed out
// could leave behind) is found by `kafgo transactions find-hanging` and
// closed by `abort --start-offset`. It needs the partition side
// (transactional Produce, DescribeProducers, WriteTxnMarkers).
func hangingTransaction(t *testing.T, c *testcluster.Cluster, tb txnBroker, topic string) {
	t.Helper()
	const ghost = 424242
	b := record.NewBuilder(0, record.CodecNone)
	b.SetProducer(ghost, 0, 0)
	b.SetTransactional(true)
	b.Append(time.Now().UnixMilli(), nil, []byte("left behind"), nil)
	batch, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	pr := kmsg.NewPtrProduceRequest()
	ghostID := "ghost"
	pr.TransactionID, pr.Acks, pr.TimeoutMillis = &ghostID, -1, 10000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = 1, batch
	rt.Partitions = append(rt.Partitions, rp)
	pr.Topics = append(pr.Topics, rt)
	resp := tb.do(pr, 8).(*kmsg.ProduceResponse)
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("transactional produce: %v", kerr.ErrorForCode(p.ErrorCode))
	}
	bs := "--bootstrap-server=" + c.Bootstrap()
	out := kafgo(t, "", "transactions", bs, "describe-producers", "--topic", topic, "--partition", "1")
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^%d\s+\t0\s+\t-1\s+\t0\s+\t\d+\s*\t%d\s*\t$`, ghost, p.BaseOffset)).MatchString(out) {
		t.Fatalf("describe-producers:\n%s", out)
	}
	row := fmt.Sprintf(`(?m)^%s\s*\t1\s*\t%d\s*\t0\s*\t-1\s*\t%d\s*\t\d+\s*\t0\s*\t$`, topic, ghost, p.BaseOffset)
	for _, scope := range [][]string{{"--topic", topic}, {"--broker-id", "1"}} {
		out = kafgo(t, "", append([]string{"transactions", bs, "find-hanging", "--max-transaction-timeout", "0"}, scope...)...)
		if !strings.HasPrefix(out, "Topic") || !regexp.MustCompile(row).MatchString(out) || strings.Count(out, "\n") != 2 {
			t.Fatalf("find-hanging %v:\n%s", scope, out)
		}
	}
	kafgo(t, "", "transactions", bs, "abort", "--topic", topic, "--partition", "1", "--start-offset", fmt.Sprint(p.BaseOffset))
	out = kafgo(t, "", "transactions", bs, "find-hanging", "--topic", topic, "--max-transaction-timeout", "0")
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("find-hanging after the abort:\n%s", out)
	}
	t.Logf("find-hanging found producer %d's transaction at offset %d; abort closed it", ghost, p.BaseOffset)
}
