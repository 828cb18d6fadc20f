package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// fencedErr reports whether err is how a broker fences a producer whose
// epoch is old: PRODUCER_FENCED, or INVALID_PRODUCER_EPOCH from older
// request versions and from partitions.
func fencedErr(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}

// beginWith begins a transaction on cl, produces values to topic's
// partition 0 in it and waits until every one is in the log; it returns
// the producer id and epoch.
func beginWith(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, values ...string) (int64, int16) {
	t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("produce %s: %v", v, err)
		}
	}
	pid, epoch, err := cl.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return pid, epoch
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

// mustBeFenced checks at the coordinator that a producer id and epoch are
// fenced: a commit with them, and the epoch bump a client asks for after
// an epoch error (InitProducerId with its id and epoch, KIP-360), answer
// PRODUCER_FENCED.
func (tb txnBroker) mustBeFenced(id string, pid int64, epoch int16) {
	tb.t.Helper()
	if code := tb.endTxn(id, pid, epoch, 3, true); code != kerr.ProducerFenced.Code {
		tb.t.Fatalf("%s: EndTxn(commit) with producer %d epoch %d: %v, want PRODUCER_FENCED", id, pid, epoch, kerr.ErrorForCode(code))
	}
	if r := tb.init(id, 60000, 4, pid, epoch); r.ErrorCode != kerr.ProducerFenced.Code {
		tb.t.Fatalf("%s: InitProducerId with producer %d epoch %d: %v (epoch %d), want PRODUCER_FENCED", id, pid, epoch, kerr.ErrorForCode(r.ErrorCode), r.ProducerEpoch)
	}
}

// waitTxnState waits until DescribeTransactions shows id in state with
// epoch.
func waitTxnState(t *testing.T, ctx context.Context, c *testcluster.Cluster, id, state string, epoch int16) {
	t.Helper()
	testwait.For(t, 30*time.Second, id+" in "+state, func() (bool, string) {
		d, err := c.Admin().DescribeTransactions(ctx, id)
		if err != nil {
			return false, err.Error()
		}
		s, err := d.On(id, nil)
		if err != nil {
			return false, err.Error()
		}
		return s.State == state && s.ProducerEpoch == epoch, fmt.Sprintf("%s epoch %d", s.State, s.ProducerEpoch)
	})
}

// TestTxnZombieAndTimeoutNeverVisible: records of a fenced zombie and of a
// transaction the coordinator aborted on timeout are in the log
// (read_uncommitted sees them) but never reach read_committed consumers;
// both producers are fenced when they carry on.
func TestTxnZombieAndTimeoutNeverVisible(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"transaction.state.log.num.partitions":                        fmt.Sprint(txnPartitions),
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "200",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic = "txn-fence"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	tb := dialTxnBroker(t, ctx, c.Addrs()[0])
	txnClient := func(id string, opts ...kgo.Opt) *kgo.Client {
		return c.Client(append([]kgo.Opt{kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	}

	// A zombie: its transaction is open with records in the log when a
	// new instance with the same transactional id starts.
	zombie := txnClient("fence-z")
	zpid, zepoch := beginWith(t, ctx, zombie, topic, numbered("zombie", 5)...)
	// Its InitProducerId fences the zombie and aborts its transaction.
	successor := txnClient("fence-z")
	_, sucEpoch := beginWith(t, ctx, successor, topic, numbered("successor", 5)...)

	// The zombie carries on: its produce is refused; once the successor
	// committed, its commit and the epoch bump (KIP-360) a client asks
	// for after an epoch error are fenced at the coordinator. (Before
	// that, Kafka's InitProducerId with the zombie's current producer id
	// would abort the successor's open transaction, as it aborts any.)
	err := zombie.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("zombie-late")}).FirstErr()
	if !fencedErr(err) {
		t.Fatalf("the zombie's produce after the fence: %v, want PRODUCER_FENCED or INVALID_PRODUCER_EPOCH", err)
	}
	if code := tb.endTxn("fence-z", zpid, zepoch, 3, true); code != kerr.ProducerFenced.Code {
		t.Fatalf("the zombie's EndTxn(commit) during the successor's transaction: %v, want PRODUCER_FENCED", kerr.ErrorForCode(code))
	}
	if err := successor.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatalf("the successor's commit: %v", err)
	}
	waitTxnState(t, ctx, c, "fence-z", "CompleteCommit", sucEpoch) // past the marker phase
	tb.mustBeFenced("fence-z", zpid, zepoch)
	t.Logf("the kgo zombie's end of its transaction: %v", zombie.EndTransaction(ctx, kgo.TryAbort))

	// A transaction that outlives its timeout: the coordinator aborts it
	// and bumps the epoch.
	slow := txnClient("fence-slow", kgo.TransactionTimeout(2*time.Second))
	spid, sepoch := beginWith(t, ctx, slow, topic, numbered("slow", 5)...)
	waitTxnState(t, ctx, c, "fence-slow", "CompleteAbort", sepoch+1) // the coordinator aborted it
	err = slow.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("slow-late")}).FirstErr()
	if !fencedErr(err) {
		t.Fatalf("the timed-out producer's produce: %v, want PRODUCER_FENCED or INVALID_PRODUCER_EPOCH", err)
	}
	tb.mustBeFenced("fence-slow", spid, sepoch)

	// A last committed transaction: the LSO is past everything above.
	last := txnClient("fence-last")
	beginWith(t, ctx, last, topic, "end")
	if err := last.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}

	committed := consumeValues(t, ctx, c, topic, kgo.ReadCommitted())
	if want := append(numbered("successor", 5), "end"); !sameSet(committed, want) {
		t.Fatalf("read_committed saw %v, want %v", committed, want)
	}
	uncommitted := consumeValues(t, ctx, c, topic, kgo.ReadUncommitted())
	for _, v := range append(numbered("zombie", 5), numbered("slow", 5)...) {
		if !slices.Contains(uncommitted, v) {
			t.Fatalf("read_uncommitted lacks %s: the aborted records were never in the log, so the read_committed check proves nothing: %v", v, uncommitted)
		}
	}
	for _, v := range []string{"zombie-late", "slow-late"} {
		if slices.Contains(uncommitted, v) {
			t.Fatalf("a fenced producer's record %s reached the log: %v", v, uncommitted)
		}
	}
}
