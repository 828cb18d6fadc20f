package cliutil

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerSettings are the parts of a producer config that a tool applies
// itself because kgo has no option for them.
type ProducerSettings struct {
	// MaxBlock is max.block.ms: how long handing a record to the client
	// may block waiting for buffer space. Zero means no bound.
	MaxBlock time.Duration
	// Acks is the normalized acks value: "all", "1" or "0".
	Acks string
	// Idempotent reports whether idempotent writes stay enabled.
	Idempotent bool
	// DeliveryTimeout is delivery.timeout.ms: how long a record may wait
	// for its acknowledgement.
	DeliveryTimeout time.Duration
	// Batches caps the client's batches (batch.size, max.request.size,
	// the topics' max.message.bytes once looked up).
	Batches *BatchCaps
}

// Codec maps a Kafka compression.type name onto a kgo codec.
func Codec(name string) (kgo.CompressionCodec, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "none", "":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("Invalid value %s for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd", name)
}

// Partitioner maps partitioner.class (Java class names or short names).
// The default is the Java client's: murmur2 of the key modulo the partition
// count, sticky batches for records without a key.
func Partitioner(name string) (kgo.Partitioner, error) {
	short := name
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	switch strings.ToLower(short) {
	case "", "defaultpartitioner", "default", "murmur2":
		return kgo.StickyKeyPartitioner(nil), nil
	case "roundrobinpartitioner", "roundrobin":
		return kgo.RoundRobinPartitioner(), nil
	case "uniformstickypartitioner", "sticky":
		return kgo.StickyPartitioner(), nil
	}
	return nil, fmt.Errorf("unsupported partitioner.class %s", name)
}

// ProducerOpts maps producer properties (and the common ones) onto kgo.
//
// batch.size (Java's 16384 by default) caps kgo's batches, and so do
// max.request.size and each topic's max.message.bytes once looked up
// (BatchCaps); kgo fails a record larger than its cap where Java sends it
// alone, which the tools handle (BatchCaps.Check, the console producer's
// overflow client). The Java default of enable.idempotence=true is kept
// except where acks or max.in.flight.requests.per.connection conflict with
// it, which is Java's own rule since 3.2.
func ProducerOpts(c *Config) ([]kgo.Opt, ProducerSettings, error) {
	var set ProducerSettings
	opts, err := CommonOpts(c)
	if err != nil {
		return nil, set, err
	}
	wrap := func(err error) ([]kgo.Opt, ProducerSettings, error) {
		return nil, set, fmt.Errorf("cliutil: %w", err)
	}
	// The Java producer's metadata requests always let the broker create
	// a missing topic (auto.create.topics.enable decides); kgo's default
	// is not to, which made a produce to a new topic fail at once.
	opts = append(opts, kgo.AllowAutoTopicCreation())

	set.Acks = "all"
	if v, ok := c.Get("acks"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "all", "-1":
			set.Acks = "all"
		case "1":
			set.Acks = "1"
		case "0":
			set.Acks = "0"
		default:
			return wrap(fmt.Errorf("Invalid value %s for configuration acks: String must be one of: all, -1, 0, 1", v))
		}
	}
	switch set.Acks {
	case "all":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	}

	inflight, inflightSet, err := c.Int("max.in.flight.requests.per.connection")
	if err != nil {
		return wrap(err)
	}
	if inflightSet && inflight < 1 {
		return wrap(invalidValue("max.in.flight.requests.per.connection", fmt.Sprint(inflight), "a value of at least 1"))
	}
	idem, idemSet, err := c.Bool("enable.idempotence")
	if err != nil {
		return wrap(err)
	}
	retries, retriesSet, err := c.Int("retries")
	if err != nil {
		return wrap(err)
	}
	noRetries := retriesSet && retries == 0
	switch {
	case idemSet && idem && set.Acks != "all":
		return wrap(errors.New("Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence."))
	case idemSet && idem && inflightSet && inflight > 5:
		return wrap(errors.New("Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer."))
	case idemSet && idem && noRetries:
		return wrap(errors.New("Must set retries to non-zero when using the idempotent producer."))
	case idemSet:
		set.Idempotent = idem
	default:
		set.Idempotent = set.Acks == "all" && (!inflightSet || inflight <= 5) && !noRetries
	}
	if !set.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
		if inflightSet {
			opts = append(opts, kgo.MaxProduceRequestsInflightPerBroker(int(inflight)))
		}
	}

	if v, ok := c.Get("compression.type"); ok {
		codec, err := Codec(v)
		if err != nil {
			return wrap(err)
		}
		opts = append(opts, kgo.ProducerBatchCompression(codec))
	} else {
		// Java's default is none; kgo's is snappy.
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	}

	pclass, _ := c.Get("partitioner.class")
	part, err := Partitioner(pclass)
	if err != nil {
		return wrap(err)
	}
	opts = append(opts, kgo.RecordPartitioner(part))

	if d, ok, err := c.Millis("linger.ms"); err != nil {
		return wrap(err)
	} else if ok {
		opts = append(opts, kgo.ProducerLinger(d))
	}
	maxReq, maxReqSet, err := c.Int("max.request.size")
	if err != nil {
		return wrap(err)
	}
	if maxReqSet {
		if maxReq < 1 || maxReq > 1<<30 {
			return wrap(invalidValue("max.request.size", fmt.Sprint(maxReq), "a value between 1 and 1073741824"))
		}
		opts = append(opts, kgo.BrokerMaxWriteBytes(int32(maxReq)))
	}
	batch, batchSet, err := c.Int("batch.size")
	if err != nil {
		return wrap(err)
	}
	if batchSet && (batch < 0 || batch > 1<<30) {
		return wrap(invalidValue("batch.size", fmt.Sprint(batch), "a value between 0 and 1073741824"))
	}
	set.Batches = &BatchCaps{BatchSize: DefaultBatchSize, MaxRequest: DefaultMaxRequestSize}
	if batchSet {
		set.Batches.BatchSize = int32(batch)
	}
	if maxReqSet {
		set.Batches.MaxRequest = int32(maxReq)
	}
	opts = append(opts, kgo.ProducerBatchMaxBytesFn(set.Batches.Cap))
	if n, ok, err := c.Int("buffer.memory"); err != nil {
		return wrap(err)
	} else if ok && n > 0 {
		opts = append(opts, kgo.MaxBufferedBytes(int(n)))
	}
	if d, ok, err := c.Millis("request.timeout.ms"); err != nil {
		return wrap(err)
	} else if ok {
		// The Java producer sends request.timeout.ms as the produce
		// request's own timeout too.
		opts = append(opts, kgo.ProduceRequestTimeout(d))
	}
	if n := retries; retriesSet && n >= 0 && n < 1<<31-1 {
		// Java counts retries after the first try; kgo counts tries.
		opts = append(opts, kgo.RecordRetries(int(n)+1))
	}
	// Java's producer gives up on a record after delivery.timeout.ms
	// (120 s by default); kgo's default is to retry forever, which left a
	// tool producing to a partition that can never take its acks (too few
	// in-sync replicas) silent for good.
	delivery := defaultDeliveryTimeout
	if d, ok, err := c.Millis("delivery.timeout.ms"); err != nil {
		return wrap(err)
	} else if ok {
		delivery = d
	}
	opts = append(opts, kgo.RecordDeliveryTimeout(delivery))
	set.DeliveryTimeout = delivery
	if d, ok, err := c.Millis("max.block.ms"); err != nil {
		return wrap(err)
	} else if ok {
		set.MaxBlock = d
	}
	if v, ok := c.Get("transactional.id"); ok && v != "" {
		opts = append(opts, kgo.TransactionalID(v))
		if d, ok, err := c.Millis("transaction.timeout.ms"); err != nil {
			return wrap(err)
		} else if ok {
			opts = append(opts, kgo.TransactionTimeout(d))
		}
	}
	return opts, set, nil
}

// AbortAfter fails every record cl still holds once d has passed since ctx
// ended, unless stop is called first. stop waits for the guard to finish,
// so that nothing is aborted on a closed client.
func AbortAfter(ctx context.Context, cl *kgo.Client, d time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			// Not waiting for requests in flight to be answered: the
			// run is ending, and that wait is what can last for ever.
			cl.UnsafeAbortBufferedRecords()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}
