package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	kd "kafgo/internal/testing/kafkadisk"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

const (
	genClusterID = "AAECAwQFBgcICQoLDA0ODw"
	genTopicID   = "EBESExQVFhcYGRobHB0eHw"
)

// writeKafkaTxnDataDir lays out, with package kafkadisk (Kafka's formats
// written from Kafka's source), the log dir of a Kafka 2.8 broker 0 whose
// topic "payments" holds an idempotent producer's batches, a committed and
// an aborted transaction and a transaction still open, with the
// coordinators' __consumer_offsets and __transaction_state partitions. A
// clean stop leaves the marker, a snapshot at the log end and closed
// indexes; a crash leaves the roll-time snapshot, preallocated indexes and
// an old recovery point.
func writeKafkaTxnDataDir(t *testing.T, logs string, clean bool, now time.Time) {
	t.Helper()
	ms := now.UnixMilli()
	t0 := ms - 10*60*1000
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(name string) string {
		d := filepath.Join(logs, name)
		must(os.MkdirAll(d, 0o755))
		return d
	}
	write := func(path string, data []byte) { must(os.WriteFile(path, data, 0o644)) }
	mkdir("")
	write(filepath.Join(logs, "meta.properties"), kd.MetaProperties(0, genClusterID))

	vals := func(prefix string, n int) []kd.Record {
		out := make([]kd.Record, n)
		for i := range out {
			out[i] = kd.Record{Value: []byte(fmt.Sprintf("%s-%d", prefix, i)), TimestampDelta: int64(i)}
		}
		return out
	}
	txn := func(off int64, epoch int32, pid int64, ts int64, recs []kd.Record) kd.Batch {
		return kd.Batch{BaseOffset: off, LeaderEpoch: epoch, ProducerID: pid, ProducerEpoch: 0, BaseSequence: 0, Transactional: true, FirstTimestamp: ts, Records: recs}
	}
	idem := func(off int64, epoch int32, seq int32, ts int64, recs []kd.Record) kd.Batch {
		return kd.Batch{BaseOffset: off, LeaderEpoch: epoch, ProducerID: 1001, ProducerEpoch: 0, BaseSequence: seq, FirstTimestamp: ts, Records: recs}
	}
	p := mkdir("payments-0")
	seg0 := kd.Segment{Batches: []kd.Batch{
		idem(0, 0, 0, t0, vals("idem", 3)),
		txn(3, 0, 2000, t0+10, vals("committed", 2)),
		kd.EndTxnMarker(5, 0, 2000, 0, true, 0, t0+20),
		txn(6, 0, 2001, t0+30, vals("aborted", 2)),
		kd.EndTxnMarker(8, 0, 2001, 0, false, 0, t0+40),
	}, Aborted: []kd.AbortedTxn{{ProducerID: 2001, FirstOffset: 6, LastOffset: 8, LastStableOffset: 9}}}
	idem2 := vals("idem", 5)[3:]
	seg1 := kd.Segment{Batches: []kd.Batch{
		idem(9, 1, 3, t0+50, []kd.Record{{Value: idem2[0].Value}, {Value: idem2[1].Value, TimestampDelta: 1}}),
		txn(11, 1, 2002, t0+60, vals("open", 2)),
	}, Active: !clean}
	must(seg0.Write(p))
	must(seg1.Write(p))
	write(filepath.Join(p, "leader-epoch-checkpoint"), kd.Checkpoint("0 0", "1 9"))
	write(filepath.Join(p, "partition.metadata"), kd.PartitionMetadata(genTopicID))
	atRoll := []kd.ProducerEntry{
		{ProducerID: 1001, LastSequence: 2, LastOffset: 2, OffsetDelta: 2, Timestamp: t0 + 2, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
		{ProducerID: 2000, LastSequence: 1, LastOffset: 4, OffsetDelta: 1, Timestamp: t0 + 11, CoordinatorEpoch: 0, CurrentTxnFirstOffset: -1},
		{ProducerID: 2001, LastSequence: 1, LastOffset: 7, OffsetDelta: 1, Timestamp: t0 + 31, CoordinatorEpoch: 0, CurrentTxnFirstOffset: -1},
	}
	must(kd.WriteSnapshot(p, 9, atRoll))
	recoveryPoint := int64(9)
	if clean {
		atEnd := append([]kd.ProducerEntry(nil), atRoll[1:]...)
		atEnd = append(atEnd,
			kd.ProducerEntry{ProducerID: 1001, LastSequence: 4, LastOffset: 10, OffsetDelta: 1, Timestamp: t0 + 51, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
			kd.ProducerEntry{ProducerID: 2002, LastSequence: 1, LastOffset: 12, OffsetDelta: 1, Timestamp: t0 + 61, CoordinatorEpoch: -1, CurrentTxnFirstOffset: 11})
		must(kd.WriteSnapshot(p, 13, atEnd))
		recoveryPoint = 13
	}

	// The coordinators' partitions.
	logsOf := map[string][]kd.Batch{}
	appendTo := func(topic string, id string, key, value []byte) {
		tp := fmt.Sprintf("%s-%d", topic, kd.CoordinatorPartition(id, 50))
		n := int64(len(logsOf[tp]))
		logsOf[tp] = append(logsOf[tp], kd.Plain(n, 0, t0+100+n, kd.Record{Key: key, Value: value}))
	}
	appendTo("__consumer_offsets", "payments-app", kd.OffsetCommitKey("payments-app", "payments", 0), kd.OffsetCommitValueV3(3, 0, "", t0+70))
	appendTo("__consumer_offsets", "payments-app", kd.GroupMetadataKey("payments-app"), kd.EmptyGroupValueV3("consumer", 5, t0+71))
	appendTo("__consumer_offsets", "legacy-app", kd.OffsetCommitKey("legacy-app", "payments", 0), kd.OffsetCommitValueV1(9, "from 2.0", t0+72, ms+7*24*3600*1000))
	pay := map[string][]int32{"payments": {0}}
	const timeout = 900000
	for _, tx := range []struct {
		id     string
		pid    int64
		states []int8
	}{
		{"tx-committed", 2000, []int8{kd.TxnEmpty, kd.TxnOngoing, kd.TxnPrepareCommit, kd.TxnCompleteCommit}},
		{"tx-aborted", 2001, []int8{kd.TxnEmpty, kd.TxnOngoing, kd.TxnPrepareAbort, kd.TxnCompleteAbort}},
		{"tx-open", 2002, []int8{kd.TxnEmpty, kd.TxnOngoing}},
	} {
		start := ms - 60*1000
		for _, st := range tx.states {
			var parts map[string][]int32
			switch st {
			case kd.TxnOngoing, kd.TxnPrepareCommit, kd.TxnPrepareAbort:
				parts = pay
			case kd.TxnCompleteCommit, kd.TxnCompleteAbort:
				parts = map[string][]int32{}
			}
			appendTo("__transaction_state", tx.id, kd.TxnKey(tx.id), kd.TxnValue(tx.pid, 0, timeout, st, parts, start, start))
		}
	}
	var rps []string
	names := make([]string, 0, len(logsOf))
	for tp := range logsOf {
		names = append(names, tp)
	}
	sort.Strings(names)
	for _, tp := range names {
		d := mkdir(tp)
		must(kd.Segment{Batches: logsOf[tp], Active: !clean}.Write(d))
		write(filepath.Join(d, "leader-epoch-checkpoint"), kd.Checkpoint("0 0"))
		end := int64(len(logsOf[tp]))
		if clean {
			must(kd.WriteSnapshot(d, end, nil))
		}
		i := strings.LastIndex(tp, "-")
		rp := end
		if !clean {
			rp = 0
		}
		rps = append(rps, fmt.Sprintf("%s %s %d", tp[:i], tp[i+1:], rp))
	}
	rps = append(rps, fmt.Sprintf("payments 0 %d", recoveryPoint))
	write(filepath.Join(logs, "recovery-point-offset-checkpoint"), kd.Checkpoint(rps...))
	write(filepath.Join(logs, "replication-offset-checkpoint"), kd.Checkpoint(rps...))
	write(filepath.Join(logs, "log-start-offset-checkpoint"), kd.Checkpoint())
	if clean {
		write(filepath.Join(logs, ".kafka_cleanshutdown"), nil)
	}
}

// seedTxnZK writes the ZooKeeper state of that cluster.
func seedTxnZK(z *kafkaZK) {
	z.persistent()
	z.create("/cluster/id", `{"version":"1","id":"`+genClusterID+`"}`)
	z.create("/controller_epoch", "2")
	z.topic("payments", 3, genTopicID, map[int][]int{0: {0}}, map[int][]int{}, map[int][]int{})
	z.partitionState("payments", 0, 2, 0, 1, []int{0})
	fifty := map[int][]int{}
	for p := 0; p < 50; p++ {
		fifty[p] = []int{0}
	}
	for _, topic := range []string{"__consumer_offsets", "__transaction_state"} {
		z.topic(topic, 3, "", fifty, map[int][]int{}, map[int][]int{})
		for p := 0; p < 50; p++ {
			z.partitionState(topic, p, 2, 0, 0, []int{0})
		}
	}
	z.config("topics/payments")
	z.config("topics/__consumer_offsets", "segment.bytes", "104857600", "compression.type", "producer", "cleanup.policy", "compact")
	z.config("topics/__transaction_state", "segment.bytes", "104857600", "unclean.leader.election.enable", "false", "compression.type", "uncompressed", "cleanup.policy", "compact", "min.insync.replicas", "1")
	z.create("/latest_producer_id_block", `{"version":1,"broker":0,"block_start":"2000","block_end":"2999"}`)
	z.create("/feature", `{"features":{},"version":1,"status":1}`)
}

func listEnd(ctx context.Context, t *testing.T, cl *kgo.Client, isolation int8) int64 {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.IsolationLevel = isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = "payments"
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Timestamp = -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("ListOffsets: %v", kerr.ErrorForCode(p.ErrorCode))
	}
	return p.Offset
}

// produceRaw sends one idempotent batch of producer 1001 (epoch 0) as a
// Kafka client would, and returns the partition's answer.
func produceRaw(ctx context.Context, t *testing.T, cl *kgo.Client, seq int32, values ...string) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	var recs []kd.Record
	for _, v := range values {
		recs = append(recs, kd.Record{Value: []byte(v)})
	}
	b := kd.Batch{ProducerID: 1001, ProducerEpoch: 0, BaseSequence: seq, FirstTimestamp: time.Now().UnixMilli(), Records: recs, LeaderEpoch: -1}
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 10000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "payments"
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = b.Encode()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Topics[0].Partitions[0]
}

// TestDropInKafkaTransactions: kafgo on a log dir in Kafka 2.8's exact
// formats (generated by kafkadisk) keeps every transaction as Kafka left
// it, after a clean stop and after a crash: read_committed readers (kcat,
// a kgo group resuming from its committed offset) see the committed data
// only and stop at the open transaction; the idempotent producer's state
// survives (a duplicate is answered with its first offset, a gap refused);
// the open transaction's coordinator state is loaded, so the producer
// re-initialising its transactional id aborts it and gets the same
// producer id with a new epoch.
func TestDropInKafkaTransactions(t *testing.T) {
	for _, clean := range []bool{true, false} {
		name := "unclean"
		if clean {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			zkc := testcluster.StartZooKeeper(t)
			z := dialKafkaZK(t, zkc.Connect())
			seedTxnZK(z)
			dir := t.TempDir()
			logs := filepath.Join(dir, "kafka-logs")
			writeKafkaTxnDataDir(t, logs, clean, time.Now())
			port := testcluster.FreePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			p := startServe(t, nil, kafkaServerProperties(t, dir, port, logs, zkc.Connect()))
			waitServing(t, p, addr)

			cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			if lso, hw := listEnd(ctx, t, cl, 1), listEnd(ctx, t, cl, 0); lso != 11 || hw != 13 {
				t.Fatalf("last stable offset %d, high watermark %d; want 11 (the open transaction's first offset) and 13", lso, hw)
			}
			// kcat reads read_committed (librdkafka's default): committed
			// and idempotent records below the open transaction.
			out := kcat(t, "", "-C", "-b", addr, "-t", "payments", "-o", "beginning", "-e", "-q", "-f", "%o:%s\n")
			want := "0:idem-0\n1:idem-1\n2:idem-2\n3:committed-0\n4:committed-1\n9:idem-3\n10:idem-4\n"
			if out != want {
				t.Errorf("kcat read_committed:\n%s\nwant:\n%s", out, want)
			}
			out = kcat(t, "", "-C", "-b", addr, "-t", "payments", "-X", "isolation.level=read_uncommitted", "-o", "beginning", "-e", "-q", "-f", "%o:%s\n")
			if !strings.Contains(out, "6:aborted-0\n") || !strings.HasSuffix(out, "11:open-0\n12:open-1\n") {
				t.Errorf("kcat read_uncommitted:\n%s", out)
			}

			// The group resumes at Kafka's commit (offset 3).
			group, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup("payments-app"), kgo.ConsumeTopics("payments"),
				kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(got) < 4 && ctx.Err() == nil {
				group.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, fmt.Sprintf("%d:%s", r.Offset, r.Value)) })
			}
			group.Close()
			if s := strings.Join(got, ","); s != "3:committed-0,4:committed-1,9:idem-3,10:idem-4" {
				t.Errorf("payments-app consumed %s", s)
			}
			// legacy-app's commit is a version 1 value (with an expiry).
			offs, err := kadmFetch(ctx, cl, "legacy-app")
			if err != nil || offs != 9 {
				t.Errorf("legacy-app committed offset %d, %v; want 9", offs, err)
			}

			// The idempotent producer's state: its last batch again is a
			// duplicate, answered with the offset it got from Kafka.
			if r := produceRaw(ctx, t, cl, 3, "idem-3", "idem-4"); r.ErrorCode != 0 || r.BaseOffset != 9 {
				t.Errorf("duplicate of the last batch: error %v base offset %d, want NONE at 9", kerr.ErrorForCode(r.ErrorCode), r.BaseOffset)
			}
			if r := produceRaw(ctx, t, cl, 7, "gap"); r.ErrorCode != kerr.OutOfOrderSequenceNumber.Code {
				t.Errorf("sequence gap: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", kerr.ErrorForCode(r.ErrorCode))
			}
			if r := produceRaw(ctx, t, cl, 5, "idem-5"); r.ErrorCode != 0 || r.BaseOffset != 13 {
				t.Errorf("next in sequence: %v at %d, want NONE at 13", kerr.ErrorForCode(r.ErrorCode), r.BaseOffset)
			}

			// The open transaction is known to its coordinator: the same
			// transactional id fences it (aborting it) and keeps its
			// producer id with a new epoch.
			var init *kmsg.InitProducerIDResponse
			testwait.For(t, 60*time.Second, "InitProducerId of tx-open", func() (bool, string) {
				req := kmsg.NewPtrInitProducerIDRequest()
				id := "tx-open"
				req.TransactionalID = &id
				req.TransactionTimeoutMillis = 60000
				resp, err := req.RequestWith(ctx, cl)
				if err != nil {
					return false, err.Error()
				}
				if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
					if errors.Is(err, kerr.ConcurrentTransactions) || errors.Is(err, kerr.CoordinatorLoadInProgress) || errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable) {
						return false, err.Error()
					}
					t.Fatalf("InitProducerId: %v", err)
				}
				init = resp
				return true, ""
			})
			// Kafka (2.5+) bumps the epoch twice: once to fence the open
			// transaction, whose abort markers carry epoch 1, and once for
			// the retried InitProducerId that then succeeds.
			if init.ProducerID != 2002 || init.ProducerEpoch != 2 {
				t.Errorf("InitProducerId(tx-open) = id %d epoch %d, want 2002 epoch 2", init.ProducerID, init.ProducerEpoch)
			}
			testwait.For(t, 30*time.Second, "the open transaction aborted", func() (bool, string) {
				lso, hw := listEnd(ctx, t, cl, 1), listEnd(ctx, t, cl, 0)
				return lso == hw && hw > 14, fmt.Sprintf("LSO %d HW %d", lso, hw)
			})
			out = kcat(t, "", "-C", "-b", addr, "-t", "payments", "-o", "beginning", "-e", "-q", "-f", "%o:%s\n")
			if strings.Contains(out, "open-") || !strings.Contains(out, "13:idem-5\n") {
				t.Errorf("after the abort, kcat read_committed:\n%s", out)
			}
			cl.Close()
			p.stop(t)
		})
	}
}

func kadmFetch(ctx context.Context, cl *kgo.Client, group string) (int64, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic = "payments"
	rt.Partitions = []int32{0}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, fmt.Errorf("no offset in %+v", resp)
	}
	return resp.Topics[0].Partitions[0].Offset, kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
}
