package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/coordlog"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// eosETL is one member of a consume-transform-produce pipeline: a kgo
// GroupTransactSession that reads input records (read_committed), writes
// each transformed to the output and commits its input offsets in the
// same transaction. Every abortEvery-th transaction is flushed to the log
// and then aborted on purpose, so the output holds aborted records
// whatever the faults do.
//
// A fault can fail a transaction on the client side (kgo fails the
// records of a transaction whose coordinator it lost track of, and then
// the transaction's end): as an application does, the member then drops
// its session and starts a new one with the same transactional id, which
// fences the old epoch and aborts what it left open. Whether anything
// was lost or doubled is for the output to tell.
type eosETL struct {
	t          *testing.T
	name       string
	newSession func() (*kgo.GroupTransactSession, error)
	out        string
	abortEvery int

	committed atomic.Int64 // input records whose transaction committed
	commits   atomic.Int64
	aborts    atomic.Int64 // transactions aborted, on purpose or not
	restarts  atomic.Int64 // sessions dropped after an error
	errs      chan error   // the member gave up
}

// maxRestarts bounds the sessions a member may drop: two faults should
// cost a few, not an endless loop.
const maxRestarts = 10

func eosTransform(key, value []byte) string {
	return string(key) + "=" + strings.ToUpper(string(value))
}

func (e *eosETL) run(ctx context.Context) {
	sess, err := e.newSession()
	if err != nil {
		e.errs <- err
		return
	}
	defer func() { sess.Close() }()
	for txn := 1; ctx.Err() == nil; {
		if err := e.transact(ctx, sess, txn%e.abortEvery == 0); err != nil && ctx.Err() == nil {
			if e.restarts.Add(1) > maxRestarts {
				e.errs <- fmt.Errorf("%s: %d sessions failed, the last with %w", e.name, maxRestarts, err)
				return
			}
			e.t.Logf("%s: %v; starting a new session", e.name, err)
			sess.Close()
			if sess, err = e.newSession(); err != nil {
				e.errs <- err
				return
			}
		}
		txn++
	}
}

// transact runs one transaction over what one poll returns, aborting it
// after flushing its records when abort is set.
func (e *eosETL) transact(ctx context.Context, sess *kgo.GroupTransactSession, abort bool) error {
	pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	fs := sess.PollRecords(pctx, 200)
	cancel()
	if fs.Empty() {
		return nil
	}
	if err := sess.Begin(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	var n int
	var produceErr atomic.Value
	fs.EachRecord(func(r *kgo.Record) {
		n++
		sess.Produce(ctx, &kgo.Record{Topic: e.out, Key: slices.Clone(r.Key), Value: []byte(eosTransform(r.Key, r.Value))},
			func(_ *kgo.Record, err error) {
				if err != nil {
					produceErr.CompareAndSwap(nil, err)
				}
			})
	})
	try := kgo.TryCommit
	if abort {
		// Put the records in the log first: an abort of buffered
		// records would leave nothing to see.
		if err := sess.Client().Flush(ctx); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
		try = kgo.TryAbort
	}
	committed, err := sess.End(ctx, try)
	if err, ok := produceErr.Load().(error); ok && !errors.Is(err, kgo.ErrAborting) {
		e.t.Logf("%s: a record of the transaction failed: %v (committed %v)", e.name, err, committed)
	}
	switch {
	case err != nil:
		e.aborts.Add(1)
		return fmt.Errorf("end transaction of %d records: %w", n, err)
	case committed:
		e.committed.Add(int64(n))
		e.commits.Add(1)
	default:
		e.aborts.Add(1)
	}
	return nil
}

// TestTxnExactlyOnceAcrossKills is the exactly-once promise end to end: a
// consume-transform-produce pipeline of two kgo GroupTransactSession
// members on a three-broker ZooKeeper cluster (RF 3, min.insync.replicas
// 2, __transaction_state RF 3 / min.isr 2) copies 20k numbered input
// records while the input still arrives. Mid-run the transaction
// coordinator of one member's transactional id is killed with -9 and
// restarted, then a leader of an output partition. Afterwards a
// read_committed consumer finds every input record in the output exactly
// once, with its content, and a read_uncommitted one finds the aborted
// records that read_committed skipped.
func TestTxnExactlyOnceAcrossKills(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"zookeeper.session.timeout.ms":                                "4000",
		"replica.lag.time.max.ms":                                     "4000",
		"min.insync.replicas":                                         "2",
		"offsets.topic.replication.factor":                            "3",
		"offsets.topic.num.partitions":                                "10",
		"transaction.state.log.replication.factor":                    "3",
		"transaction.state.log.min.isr":                               "2",
		"transaction.state.log.num.partitions":                        fmt.Sprint(txnPartitions),
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const in, out, group, parts, n = "eos-in", "eos-out", "eos-etl", 6, 20000
	mcl := c.Client()
	adm := kadm.NewClient(mcl)
	for _, topic := range []string{in, out} {
		if _, err := adm.CreateTopic(ctx, parts, 3, nil, topic); err != nil {
			t.Fatal(err)
		}
		waitFullISR(t, ctx, mcl, topic, parts)
	}

	// The input arrives at about 1000 records a second, never beyond
	// limit: each fault is injected while input is still coming, so the
	// pipeline is busy when it strikes.
	var limit, produced atomic.Int64
	limit.Store(n / 3)
	prod := c.Client(kgo.DefaultProduceTopic(in), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordDeliveryTimeout(3*time.Minute))
	prodErr := make(chan error, 1)
	go func() {
		defer close(prodErr)
		for i := 0; i < n; {
			if int64(i) >= limit.Load() {
				select {
				case <-ctx.Done():
					prodErr <- ctx.Err()
					return
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			var rs []*kgo.Record
			for end := min(i+100, n); i < end; i++ {
				rs = append(rs, &kgo.Record{Key: fmt.Appendf(nil, "k%05d", i), Value: fmt.Appendf(nil, "v%05d", i)})
			}
			if err := prod.ProduceSync(ctx, rs...).FirstErr(); err != nil {
				prodErr <- err
				return
			}
			produced.Store(int64(i))
			time.Sleep(100 * time.Millisecond)
		}
	}()

	etlCtx, stopETL := context.WithCancel(ctx)
	defer stopETL()
	var members []*eosETL
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	// Both transactional ids hash to one __transaction_state partition:
	// one broker coordinates both, and the output leader killed later can
	// be another, so that fault is a partition's alone.
	ids := []string{"eos-etl-0"}
	for i := 1; len(ids) < 2; i++ {
		if id := fmt.Sprintf("eos-etl-%d", i); coordlog.PartitionFor(id, txnPartitions) == coordlog.PartitionFor(ids[0], txnPartitions) {
			ids = append(ids, id)
		}
	}
	for i, id := range ids {
		opts := []kgo.Opt{
			kgo.SeedBrokers(c.Addrs()...),
			kgo.TransactionalID(id),
			kgo.TransactionTimeout(30 * time.Second),
			kgo.ConsumerGroup(group),
			kgo.ConsumeTopics(in),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.FetchMaxWait(200 * time.Millisecond),
			kgo.SessionTimeout(15 * time.Second),
			kgo.RecordDeliveryTimeout(2 * time.Minute),
		}
		if os.Getenv("KAFGO_TEST_KGO_LOG") != "" {
			opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, func() string {
				return fmt.Sprintf("%s m%d ", time.Now().Format("15:04:05.000"), i)
			})))
		}
		e := &eosETL{t: t, name: fmt.Sprintf("member %d (%s)", i, id), out: out, abortEvery: 7 + i*4, errs: errs,
			newSession: func() (*kgo.GroupTransactSession, error) { return kgo.NewGroupTransactSession(opts...) }}
		members = append(members, e)
		wg.Add(1)
		go func() { defer wg.Done(); e.run(etlCtx) }()
	}
	progress := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "produced %d", produced.Load())
		for i, e := range members {
			fmt.Fprintf(&b, "; member %d: %d records in %d commits, %d aborts, %d new sessions", i, e.committed.Load(), e.commits.Load(), e.aborts.Load(), e.restarts.Load())
		}
		return b.String()
	}
	committedTotal := func() int64 {
		var sum int64
		for _, e := range members {
			sum += e.committed.Load()
		}
		return sum
	}
	// waitFor polls cond, failing early on a pipeline error.
	waitFor := func(what string, timeout time.Duration, cond func() bool) {
		t.Helper()
		testwait.For(t, timeout, what, func() (bool, string) {
			select {
			case err := <-errs:
				t.Fatalf("pipeline member: %v (%s)", err, progress())
			default:
			}
			return cond(), progress()
		})
	}
	restart := func(b *testcluster.Broker) {
		t.Helper()
		b.Start()
		c.WaitForBrokers(time.Minute)
		// Every replica back in sync before the next fault, so that it
		// never leaves a partition below min.insync.replicas.
		for topic, np := range map[string]int{in: parts, out: parts, "__transaction_state": txnPartitions, "__consumer_offsets": 10} {
			waitFullISR(t, ctx, mcl, topic, np)
		}
	}

	// The coordinator of the transactional ids (FindCoordinator, key
	// type 1), killed while transactions run.
	waitFor("the pipeline to commit a first share of the input", time.Minute, func() bool { return committedTotal() >= n/6 })
	coord, _ := txnCoordinator(t, c, ids[0], -1)
	t.Logf("killing transaction coordinator %d (%s)", coord, progress())
	c.Broker(coord).Kill()
	before := committedTotal()
	newCoord, _ := txnCoordinator(t, c, ids[0], coord)
	waitFor("the pipeline to commit through the new coordinator", 90*time.Second, func() bool { return committedTotal() > before+1000 })
	t.Logf("coordinator moved to %d; restarting %d (%s)", newCoord, coord, progress())
	restart(c.Broker(coord))
	limit.Store(2 * n / 3)

	// A leader of the output topic that is not the coordinator.
	waitFor("input beyond the first third", time.Minute, func() bool { return produced.Load() > n/3+1000 })
	coord, _ = txnCoordinator(t, c, ids[0], -1)
	leaders, err := testcluster.Partitions(ctx, mcl, out)
	if err != nil {
		t.Fatal(err)
	}
	victim := int32(-1)
	for p := int32(0); p < parts && victim < 0; p++ {
		if l := leaders[p].Leader; l != coord && l >= 0 {
			victim = l
		}
	}
	if victim < 0 {
		t.Fatalf("the coordinator %d leads every output partition: %+v", coord, leaders)
	}
	t.Logf("killing output leader %d (coordinator %d; %s)", victim, coord, progress())
	c.Broker(victim).Kill()
	before = committedTotal()
	waitFor("the pipeline to commit past the dead leader", 90*time.Second, func() bool { return committedTotal() > before+1000 })
	restart(c.Broker(victim))
	limit.Store(n)

	// The end: every input offset committed by the group.
	if err := <-prodErr; err != nil {
		t.Fatalf("producing the input: %v", err)
	}
	inEnds, err := adm.ListEndOffsets(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("the group's committed offsets at the input's end", 2*time.Minute, func() bool {
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return false
		}
		done := true
		inEnds.Each(func(e kadm.ListedOffset) {
			o, ok := offs.Lookup(in, e.Partition)
			done = done && ok && o.At == e.Offset
		})
		return done
	})
	stopETL()
	wg.Wait()
	t.Logf("pipeline done: %s", progress())

	// The input itself holds each record once (idempotent producer).
	var want []string
	for i := range n {
		key := fmt.Appendf(nil, "k%05d", i)
		want = append(want, string(key)+"="+eosTransform(key, fmt.Appendf(nil, "v%05d", i)))
	}
	var inRecs int64
	inEnds.Each(func(e kadm.ListedOffset) { inRecs += e.Offset })
	if inRecs != n {
		t.Fatalf("the input holds %d records, want %d", inRecs, n)
	}
	got := readKeyValues(t, ctx, c, out, kgo.ReadCommitted(), n)
	if !sameSet(got, want) {
		missing, dups := diffCounts(got, want)
		t.Fatalf("read_committed output: %d records, want %d each once; %d missing (e.g. %v), %d extra (e.g. %v)",
			len(got), n, len(missing), head(missing, 5), len(dups), head(dups, 5))
	}
	raw := readKeyValues(t, ctx, c, out, kgo.ReadUncommitted(), n+1)
	aborted := len(raw) - n
	t.Logf("output: %d records committed, %d aborted records skipped by read_committed", len(got), aborted)
	if aborted <= 0 {
		t.Fatalf("read_uncommitted saw %d output records: no aborted data, so the read_committed check proves nothing", len(raw))
	}
}

// readKeyValues is readValues with each record as key=value.
func readKeyValues(t *testing.T, ctx context.Context, c *testcluster.Cluster, topic string, iso kgo.IsolationLevel, want int) []string {
	t.Helper()
	var out []string
	for _, r := range readRecords(t, ctx, c, topic, iso, want) {
		out = append(out, string(r.Key)+"="+string(r.Value))
	}
	return out
}

// diffCounts lists what want has that got lacks, and what got has beyond
// want.
func diffCounts(got, want []string) (missing, extra []string) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	for k, v := range count {
		for ; v > 0; v-- {
			missing = append(missing, k)
		}
		for ; v < 0; v++ {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

func head(s []string, n int) []string { return s[:min(n, len(s))] }
