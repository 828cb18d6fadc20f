package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
)

// ProducerOptions configure Produce.
type ProducerOptions struct {
	Topic string
	// Partition, when PartitionSet, sends every record to that partition
	// (a kafgo extension; Kafka's console producer has no such flag).
	Partition    int32
	PartitionSet bool
	Reader       ReaderConfig
	// Sync waits for each record's acknowledgement before reading the next
	// line (--sync).
	Sync bool
	// MaxBlock bounds how long handing one record to the client may block
	// on a full buffer (max.block.ms); zero is unbounded.
	MaxBlock time.Duration
	// DeliveryTimeout is delivery.timeout.ms: once reading stops, records
	// not acknowledged within it are failed; zero waits for ever.
	DeliveryTimeout time.Duration
	// Prompt prints Kafka's ">" before each line, for terminals.
	Prompt bool
}

// ProduceResult counts what Produce did.
type ProduceResult struct {
	Sent   int64 // acknowledged records
	Failed int64 // records that could not be produced
}

// ErrRecordsFailed is returned, wrapped, when any record failed.
var ErrRecordsFailed = errors.New("records failed")

// Producer is the console producer's client. Its batches are capped at
// batch.size (Kafka's 16384 by default) and at the topic's
// max.message.bytes; a record larger than batch.size goes alone, as Java's
// producer sends it, through a second client capped at the topic's limit
// only (kgo would fail it), once every record read before it is
// acknowledged, so that the order holds.
type Producer struct {
	*kgo.Client
	opts    []kgo.Opt
	batches *cliutil.BatchCaps
	alone   *kgo.Client // made for the first record sent alone
}

// Close closes the clients.
func (p *Producer) Close() {
	p.Client.Close()
	if p.alone != nil {
		p.alone.Close()
	}
}

// sendAlone produces r alone and waits for its acknowledgement.
func (p *Producer) sendAlone(ctx context.Context, r *kgo.Record) error {
	if err := p.Flush(ctx); err != nil {
		return err
	}
	if p.alone == nil {
		cl, err := kgo.NewClient(append(p.opts, kgo.ProducerBatchMaxBytesFn(p.batches.LimitCap))...)
		if err != nil {
			return fmt.Errorf("console: creating producer: %w", err)
		}
		p.alone = cl
	}
	return p.alone.ProduceSync(ctx, r).FirstErr()
}

// NewProducerClient builds the producer client from a Java producer
// config. With PartitionSet, records keep the partition the tool sets.
func NewProducerClient(c *cliutil.Config, o ProducerOptions) (*Producer, cliutil.ProducerSettings, error) {
	opts, set, err := cliutil.ProducerOpts(c)
	if err != nil {
		return nil, set, err
	}
	opts = append(opts, kgo.DefaultProduceTopic(o.Topic))
	if o.PartitionSet {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, set, fmt.Errorf("console: creating producer: %w", err)
	}
	return &Producer{Client: cl, opts: opts, batches: set.Batches}, set, nil
}

// Produce reads records from in, one per line, and produces them with cl.
// It always flushes before returning, so every record read is either
// acknowledged or counted as failed; a failed record is reported on errOut
// the way Kafka's ErrorLoggingCallback does, and makes Produce return an
// error wrapping ErrRecordsFailed (and saying so when the topic does not
// exist). A line that cannot be parsed stops reading, as in Kafka.
func Produce(ctx context.Context, p *Producer, o ProducerOptions, in io.Reader, out, errOut io.Writer) (ProduceResult, error) {
	var (
		res     ProduceResult
		sent    atomic.Int64
		failed  atomic.Int64
		noTopic atomic.Bool // a record failed because the topic is missing
		errMu   sync.Mutex
		lr      = NewLineReader(o.Reader)
	)
	// A failed login or missing TLS ends the tool before it reads a line
	// (kgo would retry it for each record until its delivery timeout).
	cctx, cancel := context.WithTimeout(ctx, metadataCheckTimeout)
	err := cliutil.CheckTopics(cctx, p.Client, io.Discard, nil, -1)
	if err == nil {
		p.batches.LookUp(cctx, p.Client, o.Topic)
	}
	cancel()
	if err != nil {
		return res, fmt.Errorf("console: %w", err)
	}
	promise := func(r *kgo.Record, err error) {
		if err == nil {
			sent.Add(1)
			return
		}
		failed.Add(1)
		if cliutil.IsUnknownTopic(err) {
			noTopic.Store(true)
		}
		key := "null"
		if r.Key != nil {
			key = fmt.Sprintf("%d bytes", len(r.Key))
		}
		errMu.Lock()
		fmt.Fprintf(errOut, "ERROR Error when sending message to topic %s with key: %s, value: %d bytes with error: %v\n", o.Topic, key, len(r.Value), err)
		errMu.Unlock()
	}

	lines := readLines(in)
	defer lines.stop()
	var readErr error
	for {
		if o.Prompt {
			fmt.Fprint(out, ">")
		}
		text, ok := lines.next(ctx)
		if !ok {
			readErr = lines.err()
			break
		}
		r, err := lr.Parse(trimCR(text))
		if err != nil {
			readErr = err
			break
		}
		r.Topic = o.Topic
		if o.PartitionSet {
			r.Partition = o.Partition
		}
		if err := p.batches.Check(r); err != nil { // too large for any batch
			promise(r, err)
			continue
		}
		switch {
		case !p.batches.Fits(r):
			promise(r, p.sendAlone(ctx, r))
		case o.Sync:
			promise(r, p.ProduceSync(ctx, r).FirstErr())
		default:
			produceBounded(p.Client, r, o.MaxBlock, promise)
		}
	}
	// Flush with a fresh context: an interrupt stops reading, but records
	// already read still deserve their acknowledgement or error, for
	// delivery.timeout.ms at most (kgo may never fail them once the broker
	// is gone).
	if o.DeliveryTimeout > 0 {
		stopGuard := cliutil.AbortAfter(ctx, p.Client, o.DeliveryTimeout)
		defer stopGuard()
	}
	if err := p.Flush(context.WithoutCancel(ctx)); err != nil {
		return res, fmt.Errorf("console: flushing: %w", err)
	}
	res.Sent, res.Failed = sent.Load(), failed.Load()
	if readErr != nil {
		return res, fmt.Errorf("console: %w", readErr)
	}
	if res.Failed > 0 {
		err := fmt.Errorf("console: %d of %d %w", res.Failed, res.Failed+res.Sent, ErrRecordsFailed)
		if noTopic.Load() {
			err = fmt.Errorf("%w: %w", err, cliutil.TopicNotCreated(o.Topic))
		}
		return res, err
	}
	return res, nil
}

// produceBounded hands r to the client, giving up after maxBlock if the
// client's buffer stays full. kgo blocks in Produce while its buffer is
// full and aborts the wait when the record's context ends, so the record
// gets a context that is cancelled only if Produce has not returned by the
// deadline; once Produce returns, the context is never cancelled until the
// record is done, since a cancelled context would also fail its batch.
func produceBounded(cl *kgo.Client, r *kgo.Record, maxBlock time.Duration, promise func(*kgo.Record, error)) {
	if maxBlock <= 0 {
		cl.Produce(context.Background(), r, promise)
		return
	}
	rctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	returned := false
	timer := time.AfterFunc(maxBlock, func() {
		mu.Lock()
		defer mu.Unlock()
		if !returned {
			cancel()
		}
	})
	cl.Produce(rctx, r, func(r *kgo.Record, err error) {
		if err != nil && errors.Is(err, context.Canceled) {
			err = fmt.Errorf("Failed to allocate memory within the configured max blocking time %d ms.: %w", maxBlock.Milliseconds(), err)
		}
		cancel()
		promise(r, err)
	})
	mu.Lock()
	returned = true
	mu.Unlock()
	timer.Stop()
}

func trimCR(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		return s[:n-1]
	}
	return s
}

// lineSource reads lines on its own goroutine, so that an interrupt ends a
// producer that waits for the next line: a read from a terminal cannot be
// cancelled. On an interrupt the goroutine is left in its read, which ends
// with the process or the input.
type lineSource struct {
	lines   chan string
	done    chan struct{} // closed by stop: nobody takes lines any more
	stopped sync.Once
	scanErr error // set before lines is closed
	ended   bool  // next saw lines closed
}

func readLines(in io.Reader) *lineSource {
	ls := &lineSource{lines: make(chan string), done: make(chan struct{})}
	go func() {
		defer close(ls.lines)
		sc := bufio.NewScanner(in)
		// Lines may be as large as a record may be.
		sc.Buffer(make([]byte, 64*1024), 100*1024*1024)
		for sc.Scan() {
			select {
			case ls.lines <- sc.Text():
			case <-ls.done:
				return
			}
		}
		ls.scanErr = sc.Err()
	}()
	return ls
}

// next returns the next line; false at the end of the input or when ctx
// ends first.
func (ls *lineSource) next(ctx context.Context) (string, bool) {
	select {
	case <-ctx.Done():
		return "", false
	case s, ok := <-ls.lines:
		ls.ended = !ok
		return s, ok && ctx.Err() == nil
	}
}

// err is the input's read error once next has met its end.
func (ls *lineSource) err() error {
	if ls.ended {
		return ls.scanErr
	}
	return nil
}

func (ls *lineSource) stop() { ls.stopped.Do(func() { close(ls.done) }) }
