package perf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
)

// defaultReportInterval is Kafka's fixed producer reporting window.
const defaultReportInterval = 5 * time.Second

// ProducerOptions are the flags of `kafgo perf produce`.
type ProducerOptions struct {
	Topic            string
	NumRecords       int64
	RecordSize       int
	PayloadFile      string
	PayloadDelimiter string
	PayloadMonotonic bool
	// Throughput caps records/sec; -1 is unthrottled.
	Throughput    float64
	WarmupRecords int64
	PrintMetrics  bool
	JSON          bool
	// ReportInterval is the window length; zero means Kafka's 5 s.
	ReportInterval time.Duration

	// Transactions (kafka-producer-perf-test's --transactional-id and
	// --transaction-duration-ms; the records bound is kafgo's): every
	// record is sent in a transaction, committed once it has been open
	// for the duration or holds TransactionRecords records, whichever
	// comes first, and at the end. They are on when any of the three is
	// set or the producer config has transactional.id; the id then
	// defaults to Kafka's, and the duration to 3000 ms unless only the
	// records bound is given.
	TransactionalID       string
	TransactionDurationMs int64 // 0: not given
	TransactionRecords    int64 // 0: not given
}

// Kafka's defaults for a transactional run.
const (
	DefaultTransactionalID       = "performance-producer-default-transactional-id"
	DefaultTransactionDurationMs = 3000
)

// transactional reports whether the run uses transactions with c, and
// with which transactional id and duration (0: commit by count only).
func (o *ProducerOptions) transactional(c *cliutil.Config) (id string, duration time.Duration, on bool) {
	configured, _ := c.Peek("transactional.id")
	if o.TransactionalID == "" && o.TransactionDurationMs == 0 && o.TransactionRecords == 0 && configured == "" {
		return "", 0, false
	}
	id = o.TransactionalID
	if id == "" {
		id = configured
	}
	if id == "" {
		id = DefaultTransactionalID
	}
	ms := o.TransactionDurationMs
	if ms == 0 && o.TransactionRecords == 0 {
		ms = DefaultTransactionDurationMs
	}
	return id, time.Duration(ms) * time.Millisecond, true
}

// Validate applies ProducerPerformance's checks.
func (o *ProducerOptions) Validate() error {
	if o.Topic == "" {
		return errors.New("argument --topic is required")
	}
	if o.NumRecords <= 0 {
		return errors.New("--num-records should be greater than zero")
	}
	n := 0
	if o.RecordSize != 0 {
		n++
	}
	if o.PayloadFile != "" {
		n++
	}
	if o.PayloadMonotonic {
		n++
	}
	if n != 1 {
		return errors.New("exactly one of the arguments --record-size --payload-file --payload-monotonic is required")
	}
	if o.RecordSize < 0 {
		return errors.New("--record-size should be greater than zero")
	}
	if o.Throughput == 0 || (o.Throughput < 0 && o.Throughput != -1) {
		return errors.New("--throughput must be a positive number of records per second, or -1 for no limit")
	}
	if o.WarmupRecords < 0 {
		return errors.New("--warmup-records should be greater than or equal to zero")
	}
	if o.WarmupRecords >= o.NumRecords {
		return errors.New("The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records.")
	}
	if o.TransactionDurationMs < 0 {
		return errors.New("--transaction-duration-ms should be greater than zero")
	}
	if o.TransactionRecords < 0 {
		return errors.New("--transaction-records should be greater than zero")
	}
	return nil
}

// ProducerResult is what a run measured.
type ProducerResult struct {
	Total ProducerSummary
	// Steady excludes the warmup records; nil without --warmup-records.
	Steady *ProducerSummary
	Failed int64
	// Transactions counts the committed transactions of a transactional
	// run.
	Transactions int64
}

type producerJSON struct {
	ProducerSummary
	Failed       int64              `json:"failed"`
	Transactions int64              `json:"transactions,omitempty"`
	SteadyState  *ProducerSummary   `json:"steady_state,omitempty"`
	Metrics      map[string]float64 `json:"metrics,omitempty"`
}

// startCheckTimeout bounds the first look at the cluster
// (cliutil.CheckTopics); a cluster that has not answered by then is
// waited for as before.
const startCheckTimeout = 5 * time.Second

// maxErrorsShown bounds the per-record errors printed, so a dead broker
// does not bury the summary under a million identical lines.
const maxErrorsShown = 10

// RunProducer runs the producer benchmark with the Java producer config c
// (bootstrap.servers included) and prints Kafka's lines on out, or one JSON
// object with o.JSON. Record failures go to errOut and make it return an
// error after the summary is printed.
func RunProducer(ctx context.Context, c *cliutil.Config, o ProducerOptions, out, errOut io.Writer) (ProducerResult, error) {
	var res ProducerResult
	if err := o.Validate(); err != nil {
		return res, err
	}
	c.SetDefault("client.id", "perf-producer-client")
	clientID, _ := c.Peek("client.id")
	txnID, txnDuration, txn := o.transactional(c)
	if txn {
		c.Set("transactional.id", txnID)
	}
	opts, set, err := cliutil.ProducerOpts(c)
	if err != nil {
		return res, err
	}
	metrics := &clientMetrics{}
	cl, err := kgo.NewClient(append(opts, kgo.WithHooks(metrics))...)
	if err != nil {
		return res, fmt.Errorf("perf: creating producer: %w", err)
	}
	defer cl.Close()
	c.WarnUnused(errOut)
	// kgo retries a failed login until each record's delivery timeout
	// (two minutes) where Java's producer fails at once; look first, and
	// keep watching while producing.
	cctx, cancel := context.WithTimeout(ctx, startCheckTimeout)
	err = cliutil.CheckTopics(cctx, cl, io.Discard, nil, -1)
	cancel()
	if err != nil {
		return res, fmt.Errorf("perf: %w", err)
	}
	wctx, stopWatch := cliutil.WatchFatal(ctx, cl)
	defer stopWatch()
	// Once the sends stop (a signal, a fatal error, or all sent), what is
	// still buffered gets delivery.timeout.ms to be acknowledged, as each
	// record would anyway, and is then failed: once the broker is gone kgo
	// may never fail it itself, and the run must end and say what was
	// acknowledged.
	stopGuard := cliutil.AbortAfter(wctx, cl, set.DeliveryTimeout)
	defer stopGuard()

	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	p := &payloads{monotonic: o.PayloadMonotonic, rng: rng}
	switch {
	case o.PayloadFile != "":
		info := out
		if o.JSON {
			info = errOut
		}
		if p.list, err = readPayloadFile(o.PayloadFile, o.PayloadDelimiter, info); err != nil {
			return res, err
		}
	case o.RecordSize > 0:
		p.fixed = randomPayload(rng, o.RecordSize)
	}
	// Batches grow to batch.size and no further than the topic's
	// max.message.bytes; a record larger than batch.size goes alone, as
	// with Java's producer, so the cap rises to the largest record.
	set.Batches.LookUp(wctx, cl, o.Topic)
	set.Batches.Largest(cliutil.RecordBatchBytes(&kgo.Record{Topic: o.Topic, Value: p.largest(o.NumRecords)}))

	interval := o.ReportInterval
	if interval <= 0 {
		interval = defaultReportInterval
	}
	var windows io.Writer = out
	if o.JSON {
		windows = nil
	}
	stats := newProducerStats(o.NumRecords, interval, windows)
	var steady *producerStats
	if o.WarmupRecords > 0 {
		steady = newProducerStats(o.NumRecords-o.WarmupRecords, interval, nil)
	}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex // guards stats against the final read
		failed  int64
		noTopic bool // a record failed because the topic is missing
	)
	th := throttler{target: o.Throughput}
	// A transaction is open while inTxn > 0; commit flushes its records
	// and commits it, as the Java producer's commitTransaction does.
	var (
		inTxn    int64
		txnStart time.Time
	)
	commit := func() error {
		if err := cl.Flush(wctx); err != nil {
			return fmt.Errorf("perf: flushing the transaction: %w", err)
		}
		if err := cl.EndTransaction(wctx, kgo.TryCommit); err != nil {
			return fmt.Errorf("perf: committing the transaction: %w", err)
		}
		res.Transactions++
		inTxn = 0
		return nil
	}
	for i := int64(0); i < o.NumRecords && wctx.Err() == nil; i++ {
		if txn && inTxn == 0 {
			if err := cl.BeginTransaction(); err != nil {
				return res, fmt.Errorf("perf: beginning a transaction: %w", err)
			}
			txnStart = time.Now()
		}
		value := p.next(i)
		r := &kgo.Record{Topic: o.Topic, Value: value}
		sent := time.Now()
		if i == 0 {
			stats.begin(sent)
			th.start = sent
		}
		if steady != nil && i == o.WarmupRecords {
			steady.begin(sent)
		}
		warm := i < o.WarmupRecords
		wg.Add(1)
		done := func(_ *kgo.Record, err error) {
			defer wg.Done()
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				noTopic = noTopic || cliutil.IsUnknownTopic(err)
				if failed <= maxErrorsShown {
					fmt.Fprintf(errOut, "Error producing record: %v\n", err)
				}
				return
			}
			lat := now.Sub(sent).Milliseconds()
			stats.record(lat, len(value), now)
			if steady != nil && !warm {
				steady.record(lat, len(value), now)
			}
		}
		if err := set.Batches.Check(r); err != nil { // too large for any batch
			done(r, err)
		} else {
			cl.Produce(context.Background(), r, done)
		}
		if txn {
			inTxn++
			if (txnDuration > 0 && time.Since(txnStart) >= txnDuration) || (o.TransactionRecords > 0 && inTxn >= o.TransactionRecords) {
				if err := commit(); err != nil {
					return res, err
				}
			}
		}
		th.wait(wctx, i+1)
	}
	if txn && inTxn > 0 && wctx.Err() == nil {
		if err := commit(); err != nil {
			return res, err
		}
	}
	fatal := stopWatch()
	if fatal != nil {
		// Nothing buffered will be delivered: fail it now rather than
		// each record at its delivery timeout.
		if err := cl.AbortBufferedRecords(context.Background()); err != nil {
			return res, fmt.Errorf("perf: %w (aborting the buffered records: %w)", fatal, err)
		}
	} else if err := cl.Flush(context.WithoutCancel(ctx)); err != nil {
		return res, fmt.Errorf("perf: flushing: %w", err)
	}
	wg.Wait()
	stopGuard()

	mu.Lock()
	res.Total = stats.summary()
	if steady != nil {
		s := steady.summary()
		res.Steady = &s
	}
	res.Failed = failed
	missing := noTopic
	mu.Unlock()

	var snap map[string]float64
	if o.PrintMetrics {
		snap = metrics.snapshot(true, clientID)
	}
	if o.JSON {
		j := producerJSON{ProducerSummary: res.Total, Failed: res.Failed, Transactions: res.Transactions, SteadyState: res.Steady, Metrics: snap}
		j.RecordsPerSec, j.MBPerSec = finite(j.RecordsPerSec), finite(j.MBPerSec)
		enc := json.NewEncoder(out)
		if err := enc.Encode(j); err != nil {
			return res, fmt.Errorf("perf: writing json: %w", err)
		}
	} else {
		writeSummary(out, res.Total, "")
		if res.Steady != nil {
			writeSummary(out, *res.Steady, " steady state")
		}
		printMetrics(out, snap)
	}
	if res.Failed > maxErrorsShown {
		fmt.Fprintf(errOut, "... %d more errors not shown\n", res.Failed-maxErrorsShown)
	}
	if fatal != nil {
		return res, fmt.Errorf("perf: %w", fatal)
	}
	if res.Failed > 0 {
		err := fmt.Errorf("perf: %d of %d records failed", res.Failed, res.Failed+res.Total.Records)
		if missing {
			err = fmt.Errorf("%w: %w", err, cliutil.TopicNotCreated(o.Topic))
		}
		return res, err
	}
	return res, nil
}

// throttler paces sends to a target rate: after n records it waits until
// n/target seconds have passed since the first send.
type throttler struct {
	target float64
	start  time.Time
	timer  *time.Timer
}

func (t *throttler) wait(ctx context.Context, n int64) {
	if t.target <= 0 {
		return
	}
	due := t.start.Add(time.Duration(float64(n) / t.target * float64(time.Second)))
	d := time.Until(due)
	// Waits under a millisecond cost more in timer overhead than they
	// correct; the deficit is caught up on a later record.
	if d < time.Millisecond {
		return
	}
	if t.timer == nil {
		t.timer = time.NewTimer(d)
	} else {
		t.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		// Since Go 1.23 a stopped timer's channel never delivers a stale
		// value, so there is nothing to drain.
		t.timer.Stop()
	case <-t.timer.C:
	}
}
