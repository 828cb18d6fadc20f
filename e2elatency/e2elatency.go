package e2elatency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/javanum"
)

// pollTimeout is EndToEndLatency's POLL_TIMEOUT_MS.
const pollTimeout = 60 * time.Second

// Usage is the tool's complaint about its arguments.
const Usage = "USAGE: kafgo e2e-latency broker_list topic num_messages producer_acks message_size_bytes [optional] properties_file"

// Options are the positional arguments.
type Options struct {
	Brokers        string
	Topic          string
	NumMessages    int
	Acks           string
	MessageSize    int
	PropertiesFile string
}

// ParseArgs reads the positional arguments.
func ParseArgs(args []string) (Options, error) {
	if len(args) != 5 && len(args) != 6 {
		return Options{}, errors.New(Usage)
	}
	o := Options{Brokers: args[0], Topic: args[1], Acks: args[3]}
	var err error
	if o.NumMessages, err = strconv.Atoi(args[2]); err != nil {
		return o, fmt.Errorf("For input string: \"%s\"", args[2])
	}
	if o.MessageSize, err = strconv.Atoi(args[4]); err != nil {
		return o, fmt.Errorf("For input string: \"%s\"", args[4])
	}
	if len(args) == 6 {
		o.PropertiesFile = args[5]
	}
	if o.Acks != "1" && o.Acks != "all" {
		return o, errors.New("Latency testing requires synchronous acknowledgement. Please use 1 or all")
	}
	if o.NumMessages < 1 {
		return o, errors.New("num_messages must be at least 1")
	}
	if o.MessageSize < 0 {
		return o, errors.New("message_size_bytes must not be negative")
	}
	return o, nil
}

// Result holds the measured latencies.
type Result struct {
	TotalNanos float64
	Millis     []int64 // per record, whole milliseconds
}

// Run measures, printing Kafka's lines on out.
func Run(ctx context.Context, o Options, out, warn io.Writer) (*Result, error) {
	base := func() (*cliutil.Config, error) { return cliutil.BootstrapConfig(o.Brokers, o.PropertiesFile) }

	pc, err := base()
	if err != nil {
		return nil, err
	}
	pc.Set("linger.ms", "0")
	pc.Set("acks", o.Acks)
	popts, _, err := cliutil.ProducerOpts(pc)
	if err != nil {
		return nil, err
	}
	pc.WarnUnused(warn)
	producer, err := kgo.NewClient(append(popts, kgo.AllowAutoTopicCreation())...)
	if err != nil {
		return nil, fmt.Errorf("e2e-latency: producer: %w", err)
	}
	defer producer.Close()

	// The existence check must not create the topic (the producer's
	// metadata requests would, with auto.create.topics.enable).
	ac, err := base()
	if err != nil {
		return nil, err
	}
	aopts, err := cliutil.CommonOpts(ac)
	if err != nil {
		return nil, err
	}
	admCl, err := kgo.NewClient(aopts...)
	if err != nil {
		return nil, fmt.Errorf("e2e-latency: admin: %w", err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	topics, err := adm.ListTopics(ctx, o.Topic)
	if err != nil {
		return nil, fmt.Errorf("e2e-latency: listing topics: %w", err)
	}
	if !topics.Has(o.Topic) {
		fmt.Fprintf(out, "Topic \"%s\" does not exist. Will create topic with %d partition(s) and replication factor = %d\n", o.Topic, 1, 1)
		resp, err := adm.CreateTopic(ctx, 1, 1, nil, o.Topic)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			fmt.Fprintf(out, "Creation of topic %s failed\n", o.Topic)
			return nil, fmt.Errorf("e2e-latency: %w", err)
		}
	}
	if topics, err = waitForTopic(ctx, adm, o.Topic); err != nil {
		return nil, err
	}
	// Java's seekToEnd then position(): start exactly at each partition's
	// end as it is now, so no record sent after this is missed.
	ends, err := adm.ListEndOffsets(ctx, o.Topic)
	if err != nil {
		return nil, fmt.Errorf("e2e-latency: end offsets: %w", err)
	}
	assign := map[string]map[int32]kgo.Offset{o.Topic: {}}
	next := map[int32]int64{}
	for p := range topics[o.Topic].Partitions {
		end, ok := ends.Lookup(o.Topic, p)
		if !ok || end.Err != nil {
			return nil, fmt.Errorf("e2e-latency: end offset of %s-%d: %v", o.Topic, p, end.Err)
		}
		assign[o.Topic][p] = kgo.NewOffset().At(end.Offset)
	}

	cc, err := base()
	if err != nil {
		return nil, err
	}
	copts, _, err := cliutil.ConsumerOpts(cc)
	if err != nil {
		return nil, err
	}
	group := "test-group-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	consumer, err := kgo.NewClient(append(copts, kgo.ConsumePartitions(assign), kgo.FetchMaxWait(10*time.Millisecond), kgo.FetchMinBytes(1))...)
	if err != nil {
		return nil, fmt.Errorf("e2e-latency: consumer: %w", err)
	}
	defer consumer.Close()

	rnd := newJavaRandom(0)
	res := &Result{Millis: make([]int64, o.NumMessages)}
	for i := 0; i < o.NumMessages; i++ {
		msg := bytes.Repeat([]byte{byte(rnd.nextInt(26) + 65)}, o.MessageSize)
		begin := time.Now()
		if err := producer.ProduceSync(ctx, &kgo.Record{Topic: o.Topic, Value: msg}).FirstErr(); err != nil {
			return nil, fmt.Errorf("e2e-latency: producing record %d: %w", i, err)
		}
		got, err := pollOne(ctx, consumer)
		elapsed := time.Since(begin)
		for _, r := range got {
			next[r.Partition] = r.Offset + 1
		}
		if err != nil {
			commit(ctx, adm, group, next, o.Topic)
			return nil, err
		}
		if !bytes.Equal(got[0].Value, msg) {
			commit(ctx, adm, group, next, o.Topic)
			return nil, fmt.Errorf("The message read [%s] did not match the message sent [%s]", got[0].Value, msg)
		}
		if len(got) != 1 {
			commit(ctx, adm, group, next, o.Topic)
			return nil, fmt.Errorf("Only one result was expected during this test. We found [%d]", len(got))
		}
		if i%1000 == 0 {
			fmt.Fprintf(out, "%d\t%s\n", i, javanum.FormatDouble(float64(elapsed.Nanoseconds())/1000.0/1000.0))
		}
		res.TotalNanos += float64(elapsed.Nanoseconds())
		res.Millis[i] = elapsed.Nanoseconds() / 1000 / 1000
	}
	PrintResults(out, res)
	commit(ctx, adm, group, next, o.Topic)
	return res, nil
}

// PrintResults is EndToEndLatency.printResults.
func PrintResults(out io.Writer, r *Result) {
	n := len(r.Millis)
	fmt.Fprintf(out, "Avg latency: %s ms\n", javanum.FormatFixed(r.TotalNanos/float64(n)/1000.0/1000.0, 4))
	sorted := slices.Clone(r.Millis)
	slices.Sort(sorted)
	at := func(q float64) int64 { return sorted[int(float64(n)*q)] }
	fmt.Fprintf(out, "Percentiles: 50th = %d, 99th = %d, 99.9th = %d\n", at(0.5), at(0.99), at(0.999))
}

// pollOne waits up to the poll timeout for the records of one fetch.
func pollOne(ctx context.Context, cl *kgo.Client) ([]*kgo.Record, error) {
	pctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	for {
		fs := cl.PollFetches(pctx)
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		if len(recs) > 0 {
			return recs, nil
		}
		if pctx.Err() != nil {
			return nil, fmt.Errorf("poll() timed out before finding a result (timeout:[%d])", pollTimeout.Milliseconds())
		}
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) && !errors.Is(e.Err, context.Canceled) {
				return nil, fmt.Errorf("e2e-latency: fetching %s-%d: %w", e.Topic, e.Partition, e.Err)
			}
		}
	}
}

// commit is the tool's closing commitSync: the consumer's position, the
// offset after the last record read, under the tool's group.
func commit(ctx context.Context, adm *kadm.Client, group string, next map[int32]int64, topic string) {
	if len(next) == 0 {
		return
	}
	offs := kadm.Offsets{}
	for p, o := range next {
		offs.Add(kadm.Offset{Topic: topic, Partition: p, At: o, LeaderEpoch: -1})
	}
	_, _ = adm.CommitOffsets(ctx, group, offs) // best effort, as the tool's last step
}

// waitForTopic waits until the new topic's partitions have leaders.
func waitForTopic(ctx context.Context, adm *kadm.Client, topic string) (kadm.TopicDetails, error) {
	deadline := time.Now().Add(pollTimeout)
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err == nil && td.Has(topic) && td[topic].Err == nil && len(td[topic].Partitions) > 0 {
			ready := true
			for _, p := range td[topic].Partitions {
				ready = ready && p.Leader >= 0 && p.Err == nil
			}
			if ready {
				return td, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("e2e-latency: topic %s has no leader after %v", topic, pollTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// javaRandom is java.util.Random's generator (a 48-bit linear
// congruential generator, documented in its Javadoc), so the records
// carry the letters Kafka's tool sends.
type javaRandom struct{ seed int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaMask       = 1<<48 - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + 0xB) & javaMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextInt is Random.nextInt(bound), bound > 0.
func (r *javaRandom) nextInt(bound int32) int32 {
	if bound&(-bound) == bound {
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	for {
		bits := r.next(31)
		val := bits % bound
		if bits-val+(bound-1) >= 0 {
			return val
		}
	}
}
