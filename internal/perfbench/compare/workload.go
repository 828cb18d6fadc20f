package compare

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// run is one measured run against one target.
type run struct {
	Records int
	Elapsed time.Duration
	CPU     time.Duration // the broker processes' CPU during the run
}

func (r run) recPerSec() float64 { return float64(r.Records) / r.Elapsed.Seconds() }

// cpuPerRecord is the broker's CPU per record, in µs.
func (r run) cpuPerRecord() float64 {
	return float64(r.CPU.Nanoseconds()) / 1e3 / float64(r.Records)
}

// producerOpts is the client of the throughput runs: 16 KiB batches,
// linger 5 ms, no compression; acks=1 without idempotence and with 5
// requests in flight (the Java producer's default), acks=all idempotent
// (kgo's default, which keeps up to 5 requests in flight too).
// In the spread shape records go round-robin over the partitions (as keyed
// records spread) and the producer may buffer 100,000 records.
func producerOpts(seeds []string, acks, shape string) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.ProducerBatchMaxBytes(16 << 10),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}
	if shape == "spread" {
		opts = append(opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.MaxBufferedRecords(100_000))
	}
	if acks == "1" {
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(5))
	}
	return opts
}

// produce writes n records of size bytes to topic and measures from the
// first Produce to the last acknowledgement. One record is produced first,
// untimed, so metadata, connections and the producer id are in place.
func produce(ctx context.Context, seeds []string, pids []int, topic string, n, size int, acks, shape string) (run, error) {
	cl, err := kgo.NewClient(producerOpts(seeds, acks, shape)...)
	if err != nil {
		return run{}, err
	}
	defer cl.Close()
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: payload}).FirstErr(); err != nil {
		return run{}, fmt.Errorf("compare: warm-up produce to %s: %w", topic, err)
	}
	quiesce(pids, 5*time.Second)
	cpu0, err := cpuOf(pids)
	if err != nil {
		return run{}, err
	}
	var (
		wg       sync.WaitGroup
		failed   atomic.Int64
		firstErr error
		once     sync.Once
	)
	start := time.Now()
	for range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: payload}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
				once.Do(func() { firstErr = err })
			}
			wg.Done()
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return run{}, fmt.Errorf("compare: flushing: %w", err)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := cpuOf(pids)
	if err != nil {
		return run{}, err
	}
	if f := failed.Load(); f > 0 {
		return run{}, fmt.Errorf("compare: %d of %d records to %s failed, first: %w", f, n, topic, firstErr)
	}
	return run{Records: n, Elapsed: elapsed, CPU: cpu1 - cpu0}, nil
}

// consume reads want records from the start of topic with a fresh client
// and no group, timed from the client's creation (metadata and offsets
// included, the same on both sides) to the last record.
func consume(ctx context.Context, seeds []string, pids []int, topic string, want int, shape string) (run, error) {
	quiesce(pids, 5*time.Second)
	cpu0, err := cpuOf(pids)
	if err != nil {
		return run{}, err
	}
	start := time.Now()
	opts := []kgo.Opt{}
	if shape == "spread" {
		opts = append(opts, kgo.FetchMaxBytes(50<<20), kgo.FetchMaxPartitionBytes(10<<20))
	}
	cl, err := newConsumer(seeds, topic, opts...)
	if err != nil {
		return run{}, err
	}
	defer cl.Close()
	got := 0
	for got < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return run{}, fmt.Errorf("compare: consumed %d of %d records of %s: %w", got, want, topic, err)
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = errors.Join(ferr, fmt.Errorf("%s[%d]: %w", t, p, err)) })
		if ferr != nil {
			return run{}, fmt.Errorf("compare: consuming %s: %w", topic, ferr)
		}
		got += fs.NumRecords()
	}
	elapsed := time.Since(start)
	cpu1, err := cpuOf(pids)
	if err != nil {
		return run{}, err
	}
	return run{Records: got, Elapsed: elapsed, CPU: cpu1 - cpu0}, nil
}

// newConsumer reads topic from its start without a group, long-polling
// with fetch.max.wait 500 ms as the Java consumer does.
func newConsumer(seeds []string, topic string, extra ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(500 * time.Millisecond),
	}, extra...)...)
}

// latencies is one end-to-end latency run: what was sent and the delays
// the consumer saw, sorted.
type latencies struct {
	Sent   int
	Delays []time.Duration
}

// endToEnd produces rate records/s of 100 B to topic for warm+dur, each
// carrying its send time (ns on a monotonic clock) in its first 8 bytes,
// while a consumer reads them; it returns the delays of the records sent
// after warm. The producer is idempotent with acks=all and no linger (a
// latency run does not batch on purpose); the consumer long-polls with
// fetch.max.wait 500 ms, so a broker that sleeps through arriving data
// shows here.
func endToEnd(ctx context.Context, seeds []string, topic string, rate int, warm, dur time.Duration) (latencies, error) {
	base := time.Now()
	since := func() int64 { return int64(time.Since(base)) }

	cons, err := newConsumer(seeds, topic)
	if err != nil {
		return latencies{}, err
	}
	defer cons.Close()
	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		return latencies{}, err
	}
	defer prod.Close()

	value := func() []byte {
		v := make([]byte, 100)
		binary.BigEndian.PutUint64(v, uint64(since()))
		return v
	}
	// The first record warms both clients: the consumer must have it
	// before the paced run starts, or the run would measure start-up.
	if err := prod.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: value()}).FirstErr(); err != nil {
		return latencies{}, fmt.Errorf("compare: warm-up produce to %s: %w", topic, err)
	}
	total := int(float64(rate) * (warm + dur).Seconds())
	warmEnd := int64(warm)
	var (
		mu     sync.Mutex
		delays = make([]time.Duration, 0, int(float64(rate)*dur.Seconds()))
		got    int
	)
	consumed := make(chan error, 1)
	go func() {
		want := total + 1
		for got < want {
			fs := cons.PollFetches(ctx)
			if err := ctx.Err(); err != nil {
				consumed <- fmt.Errorf("compare: latency run got %d of %d records: %w", got, want, err)
				return
			}
			now := since()
			var ferr error
			fs.EachError(func(t string, p int32, err error) { ferr = errors.Join(ferr, err) })
			if ferr != nil {
				consumed <- ferr
				return
			}
			mu.Lock()
			fs.EachRecord(func(r *kgo.Record) {
				got++
				sent := int64(binary.BigEndian.Uint64(r.Value))
				if sent >= warmEnd {
					delays = append(delays, time.Duration(now-sent))
				}
			})
			mu.Unlock()
		}
		consumed <- nil
	}()

	var pfailed atomic.Int64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for sent := 0; sent < total; {
		select {
		case <-ctx.Done():
			return latencies{}, ctx.Err()
		case <-tick.C:
		}
		due := min(total, int(float64(rate)*time.Since(start).Seconds()))
		for ; sent < due; sent++ {
			prod.Produce(ctx, &kgo.Record{Topic: topic, Value: value()}, func(_ *kgo.Record, err error) {
				if err != nil {
					pfailed.Add(1)
				}
			})
		}
	}
	if err := prod.Flush(ctx); err != nil {
		return latencies{}, err
	}
	if f := pfailed.Load(); f > 0 {
		return latencies{}, fmt.Errorf("compare: %d records of the latency run failed", f)
	}
	if err := <-consumed; err != nil {
		return latencies{}, err
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(delays)
	return latencies{Sent: total, Delays: delays}, nil
}
