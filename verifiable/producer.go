package verifiable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/javaerr"
)

// ProducerOptions are verifiable-producer's flags.
type ProducerOptions struct {
	Topic          string
	Bootstrap      string
	MaxMessages    int64 // -1: until stopped
	Throughput     int64 // records/s; -1: unthrottled, 0: none at all
	Acks           int   // -1, 0 or 1
	ConfigFile     string
	CreateTime     int64 // -1: the client's clock
	ValuePrefix    *int64
	RepeatingKeys  *int64
	Now            func() time.Time // nil: time.Now
	ExtraClientOps []kgo.Opt        // tests
}

// Producer is the running tool.
type Producer struct {
	o      ProducerOptions
	cl     *kgo.Client
	p      *printer
	sent   atomic.Int64
	acked  atomic.Int64
	keyCtr int64
	start  time.Time
	wg     sync.WaitGroup
}

// NewProducer builds the producer: acks and retries=0 from the flags, the
// --producer.config file over them, as Kafka's tool does.
func NewProducer(o ProducerOptions, out, warn io.Writer) (*Producer, error) {
	switch o.Acks {
	case -1, 0, 1:
	default:
		return nil, fmt.Errorf("argument --acks: invalid choice: '%d' (choose from 0, 1, -1)", o.Acks)
	}
	c := cliutil.NewConfig()
	c.Set("bootstrap.servers", o.Bootstrap)
	c.Set("acks", strconv.Itoa(o.Acks))
	c.Set("retries", "0")
	if err := c.LoadFile(o.ConfigFile); err != nil {
		return nil, err
	}
	opts, _, err := cliutil.ProducerOpts(c)
	if err != nil {
		return nil, err
	}
	c.WarnUnused(warn)
	cl, err := kgo.NewClient(append(opts, o.ExtraClientOps...)...)
	if err != nil {
		return nil, fmt.Errorf("verifiable-producer: %w", err)
	}
	pr := &Producer{o: o, cl: cl, p: newPrinter(out, o.Now)}
	pr.start = pr.p.now()
	return pr, nil
}

func (pr *Producer) value(i int64) string {
	if pr.o.ValuePrefix != nil {
		return fmt.Sprintf("%d.%d", *pr.o.ValuePrefix, i)
	}
	return strconv.FormatInt(i, 10)
}

func (pr *Producer) key() *string {
	if pr.o.RepeatingKeys == nil {
		return nil
	}
	k := strconv.FormatInt(pr.keyCtr, 10)
	pr.keyCtr++
	if pr.keyCtr == *pr.o.RepeatingKeys {
		pr.keyCtr = 0
	}
	return &k
}

// Run produces until MaxMessages are sent or ctx ends, then flushes and
// prints shutdown_complete and tool_data (Kafka's shutdown hook).
func (pr *Producer) Run(ctx context.Context) {
	pr.p.print(pr.p.event("startup_complete"))
	max := pr.o.MaxMessages
	if max < 0 {
		max = 1<<63 - 1
	}
	var timer *time.Timer
	for i := int64(0); i < max && ctx.Err() == nil; i++ {
		sendStart := pr.p.now()
		pr.send(ctx, pr.key(), pr.value(i))
		if wait := pr.throttle(i, sendStart); wait != 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-ctx.Done():
			case <-timer.C:
			}
		}
	}
	pr.close()
}

// throttle is ThroughputThrottler: once the rate so far exceeds the
// target, wait until it no longer does (0 records/s: until stopped).
func (pr *Producer) throttle(sent int64, sendStart time.Time) time.Duration {
	t := pr.o.Throughput
	if t < 0 {
		return 0
	}
	if t == 0 {
		return time.Duration(1<<63 - 1)
	}
	elapsed := sendStart.Sub(pr.start)
	if elapsed <= 0 || float64(sent)/elapsed.Seconds() <= float64(t) {
		return 0
	}
	return time.Duration(float64(sent+1)/float64(t)*float64(time.Second)) - elapsed
}

func (pr *Producer) send(ctx context.Context, key *string, value string) {
	r := &kgo.Record{Topic: pr.o.Topic, Value: []byte(value)}
	if key != nil {
		r.Key = []byte(*key)
	}
	if pr.o.CreateTime >= 0 {
		r.Timestamp = time.UnixMilli(pr.o.CreateTime)
		// Kafka's tool moves the create time on by the time since start
		// after every record (its own accumulating rule).
		pr.o.CreateTime += pr.p.now().Sub(pr.start).Milliseconds()
	}
	pr.sent.Add(1)
	pr.wg.Add(1)
	pr.cl.Produce(ctx, r, func(r *kgo.Record, err error) {
		defer pr.wg.Done()
		if err != nil {
			pr.p.print(pr.p.event("producer_send_error").str("topic", pr.o.Topic).strOrNull("key", key).str("value", value).
				str("exception", "class "+exceptionClass(err)).str("message", exceptionMessage(err)))
			return
		}
		pr.acked.Add(1)
		pr.p.print(pr.p.event("producer_send_success").strOrNull("key", key).str("value", value).
			int("offset", r.Offset).str("topic", r.Topic).int("partition", int64(r.Partition)))
	})
}

// close is the shutdown hook: flush, shutdown_complete, tool_data.
func (pr *Producer) close() {
	flushCtx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_ = pr.cl.Flush(flushCtx)
	pr.cl.Close()
	pr.wg.Wait()
	pr.p.print(pr.p.event("shutdown_complete"))
	stop := pr.p.now()
	avg := 1000 * (float64(pr.acked.Load()) / float64(stop.Sub(pr.start).Milliseconds()))
	pr.p.print(pr.p.event("tool_data").int("sent", pr.sent.Load()).int("acked", pr.acked.Load()).
		int("target_throughput", pr.o.Throughput).double("avg_throughput", avg))
}

// exceptionClass is the Java exception a send failure surfaces as.
func exceptionClass(err error) string {
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		return javaerr.Class(ke.Code)
	case errors.Is(err, kgo.ErrRecordTimeout), errors.Is(err, context.DeadlineExceeded):
		return "org.apache.kafka.common.errors.TimeoutException"
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, context.Canceled):
		return "org.apache.kafka.common.errors.InterruptException"
	}
	return "org.apache.kafka.common.KafkaException"
}

func exceptionMessage(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return javaerr.Message(ke.Code, nil)
	}
	return err.Error()
}
