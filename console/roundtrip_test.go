package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
)

func config(addrs string, props map[string]string) *cliutil.Config {
	c := cliutil.NewConfig()
	c.Merge(props)
	c.Set("bootstrap.servers", addrs)
	return c
}

func produce(t *testing.T, addrs string, o ProducerOptions, props map[string]string, input string) (ProduceResult, string, error) {
	t.Helper()
	cl, set, err := NewProducerClient(config(addrs, props), o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if o.MaxBlock == 0 {
		o.MaxBlock = set.MaxBlock
	}
	var out, errOut bytes.Buffer
	res, err := Produce(clitest.Context(t, 30*time.Second), cl, o, strings.NewReader(input), &out, &errOut)
	if out.Len() != 0 {
		t.Errorf("producer without prompt wrote %q to stdout", out.String())
	}
	return res, errOut.String(), err
}

func consume(t *testing.T, addrs string, o ConsumerOptions, props map[string]string) (string, int) {
	t.Helper()
	out, _, n := consumeStderr(t, addrs, o, props)
	return out, n
}

// consumeStderr is consume returning what the consumer wrote to stderr.
func consumeStderr(t *testing.T, addrs string, o ConsumerOptions, props map[string]string) (string, string, int) {
	t.Helper()
	if o.Formatter == (FormatterConfig{}) {
		o.Formatter = DefaultFormatterConfig()
	}
	if o.Timeout == 0 && o.MaxMessages == 0 {
		t.Fatal("test consumers must be bounded by --max-messages or --timeout-ms")
	}
	cl, set, err := NewConsumerClient(config(addrs, props), o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out, errOut bytes.Buffer
	n, err := Consume(clitest.Context(t, 30*time.Second), cl, o, set, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), n
}

func formatter(t *testing.T, props map[string]string) FormatterConfig {
	t.Helper()
	fc, err := ParseFormatterConfig(props)
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

func readerCfg(t *testing.T, props map[string]string) ReaderConfig {
	t.Helper()
	rc, err := ParseReaderConfig(props)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func TestRoundTripKeysHeadersPartitions(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "single"), kfake.SeedTopics(3, "three"))
	rc := readerCfg(t, map[string]string{"parse.key": "true", "key.separator": ":", "parse.headers": "true"})
	input := "trace:1,src:cli\tuser1:first\n" +
		"trace:2\tuser2:second: with colon\n" +
		"empty:\tuser3:\n"
	res, stderr, err := produce(t, addrs, ProducerOptions{Topic: "single", Reader: rc}, nil, input)
	if err != nil || res.Sent != 3 || res.Failed != 0 {
		t.Fatalf("produce: %+v %v %s", res, err, stderr)
	}
	all := formatter(t, map[string]string{"print.partition": "true", "print.offset": "true", "print.headers": "true", "print.key": "true"})
	out, n := consume(t, addrs, ConsumerOptions{Topic: "single", FromBeginning: true, MaxMessages: 3, Formatter: all}, nil)
	if n != 3 {
		t.Fatalf("consumed %d, want 3", n)
	}
	clitest.Golden(t, "roundtrip-keys-headers.golden", []byte(out))

	t.Run("timestamp is the produce time", func(t *testing.T) {
		before := time.Now().Add(-time.Minute).UnixMilli()
		fc := formatter(t, map[string]string{"print.timestamp": "true", "print.value": "false"})
		out, _ := consume(t, addrs, ConsumerOptions{Topic: "single", Partition: 0, PartitionSet: true, Offset: "0", MaxMessages: 1, Formatter: fc}, nil)
		var ts int64
		if _, err := fmt.Sscanf(out, "CreateTime:%d\n", &ts); err != nil || ts < before || ts > time.Now().UnixMilli() {
			t.Fatalf("timestamp line %q (parsed %d): %v", out, ts, err)
		}
	})

	t.Run("explicit partition", func(t *testing.T) {
		o := ProducerOptions{Topic: "three", Partition: 2, PartitionSet: true, Reader: DefaultReaderConfig()}
		if res, stderr, err := produce(t, addrs, o, nil, "a\nb\nc\n"); err != nil || res.Sent != 3 {
			t.Fatalf("produce: %+v %v %s", res, err, stderr)
		}
		fc := formatter(t, map[string]string{"print.partition": "true", "print.offset": "true"})
		out, _ := consume(t, addrs, ConsumerOptions{Topic: "three", Partition: 2, PartitionSet: true, Offset: "1", MaxMessages: 2, Formatter: fc}, nil)
		if want := "Partition:2\tOffset:1\tb\nPartition:2\tOffset:2\tc\n"; out != want {
			t.Fatalf("got %q, want %q", out, want)
		}
		// The other partitions stayed empty.
		out, n := consume(t, addrs, ConsumerOptions{Topic: "three", FromBeginning: true, Timeout: clitest.RecordWait, Formatter: fc}, nil)
		if n != 3 || strings.Count(out, "Partition:2\t") != 3 {
			t.Fatalf("whole topic holds %q", out)
		}
	})

	t.Run("latest skips old records", func(t *testing.T) {
		_, n := consume(t, addrs, ConsumerOptions{Topic: "single", Timeout: 300 * time.Millisecond}, nil)
		if n != 0 {
			t.Fatalf("consumer without --from-beginning read %d old records", n)
		}
	})

	t.Run("include regex", func(t *testing.T) {
		out, n := consume(t, addrs, ConsumerOptions{Include: "th.*", FromBeginning: true, Timeout: clitest.RecordWait}, nil)
		if n != 3 || out != "a\nb\nc\n" {
			t.Fatalf("include th.* read %d: %q", n, out)
		}
		_, n = consume(t, addrs, ConsumerOptions{Include: "th", FromBeginning: true, Timeout: 300 * time.Millisecond}, nil)
		if n != 0 {
			t.Fatalf("include must match whole names, read %d", n)
		}
	})
}

func TestMaxMessagesAndTimeout(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	lines := ""
	for i := range 10 {
		lines += fmt.Sprintf("m%d\n", i)
	}
	if res, _, err := produce(t, addrs, ProducerOptions{Topic: "t", Reader: DefaultReaderConfig(), Sync: true}, nil, lines); err != nil || res.Sent != 10 {
		t.Fatalf("produce %+v %v", res, err)
	}
	cases := []struct {
		name string
		o    ConsumerOptions
		want int
	}{
		{"max below available", ConsumerOptions{Topic: "t", FromBeginning: true, MaxMessages: 4}, 4},
		{"max above available ends by timeout", ConsumerOptions{Topic: "t", FromBeginning: true, MaxMessages: 50, Timeout: clitest.RecordWait}, 10},
		{"timeout only", ConsumerOptions{Topic: "t", FromBeginning: true, Timeout: clitest.RecordWait}, 10},
		{"offset in partition", ConsumerOptions{Topic: "t", Partition: 0, PartitionSet: true, Offset: "7", Timeout: clitest.RecordWait}, 3},
		{"earliest in partition", ConsumerOptions{Topic: "t", Partition: 0, PartitionSet: true, Offset: "earliest", Timeout: clitest.RecordWait}, 10},
		{"latest in partition", ConsumerOptions{Topic: "t", Partition: 0, PartitionSet: true, Offset: "latest", Timeout: 300 * time.Millisecond}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			out, n := consume(t, addrs, c.o, nil)
			if n != c.want || strings.Count(out, "\n") != c.want {
				t.Fatalf("printed %d records (%q), want %d", n, out, c.want)
			}
			if c.o.Timeout > 0 && time.Since(start) < c.o.Timeout {
				t.Fatalf("returned after %v, before the %v timeout", time.Since(start), c.o.Timeout)
			}
		})
	}
}

func TestFromTimestamp(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	cl := clitest.Client(t, addrs)
	ctx := clitest.Context(t, 10*time.Second)
	for i, ts := range []int64{1000, 2000, 3000, 4000} {
		r := &kgo.Record{Topic: "t", Value: []byte(fmt.Sprint(i)), Timestamp: time.UnixMilli(ts)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		o    ConsumerOptions
		want string
	}{
		{"subscribe", ConsumerOptions{Topic: "t", FromTimestamp: 2500, FromTimestampSet: true, Timeout: clitest.RecordWait}, "2\n3\n"},
		{"partition", ConsumerOptions{Topic: "t", Partition: 0, PartitionSet: true, FromTimestamp: 2000, FromTimestampSet: true, Timeout: clitest.RecordWait}, "1\n2\n3\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if out, _ := consume(t, addrs, c.o, nil); out != c.want {
				t.Fatalf("got %q, want %q", out, c.want)
			}
		})
	}
}

func TestCompressionCodecs(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "none", "gzip", "snappy", "lz4", "zstd"))
	// Kafka's codec ids, as the batch attributes carry them.
	ids := map[string]uint8{"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
	value := strings.Repeat("compressible payload ", 50)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			input := strings.Repeat(value+"\n", 20)
			props := map[string]string{"compression.type": codec, "linger.ms": "50"}
			if res, stderr, err := produce(t, addrs, ProducerOptions{Topic: codec, Reader: DefaultReaderConfig()}, props, input); err != nil || res.Sent != 20 {
				t.Fatalf("produce %+v %v %s", res, err, stderr)
			}
			cl := clitest.Client(t, addrs, kgo.ConsumeTopics(codec), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			ctx := clitest.Context(t, 10*time.Second)
			got := 0
			for got < 20 && ctx.Err() == nil {
				cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
					got++
					if string(r.Value) != value {
						t.Errorf("value %q", r.Value)
					}
					if c := r.Attrs.CompressionType(); c != ids[codec] {
						t.Errorf("record compressed with codec %d, want %d (%s)", c, ids[codec], codec)
					}
				})
			}
			if got != 20 {
				t.Fatalf("read %d records", got)
			}
		})
	}
}

// murmur2 vectors from Kafka's UtilsTest, as listed in the protocol
// reference; the expected partition is toPositive(hash) % n, computed
// here from the published hash, not from any partitioner code.
func TestKeyPlacementMatchesJavaClient(t *testing.T) {
	vectors := []struct {
		key  string
		hash int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"abc", 479470107},
	}
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(50, "fifty"), kfake.SeedTopics(7, "seven"))
	for _, topic := range []struct {
		name string
		n    int32
	}{{"fifty", 50}, {"seven", 7}} {
		var input strings.Builder
		for _, v := range vectors {
			input.WriteString(v.key + ":x\n")
		}
		rc := readerCfg(t, map[string]string{"parse.key": "true", "key.separator": ":"})
		if res, stderr, err := produce(t, addrs, ProducerOptions{Topic: topic.name, Reader: rc}, nil, input.String()); err != nil || res.Sent != int64(len(vectors)) {
			t.Fatalf("produce %+v %v %s", res, err, stderr)
		}
		fc := formatter(t, map[string]string{"print.key": "true", "print.partition": "true", "print.value": "false"})
		out, _ := consume(t, addrs, ConsumerOptions{Topic: topic.name, FromBeginning: true, MaxMessages: len(vectors), Formatter: fc}, nil)
		placed := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			p, k, _ := strings.Cut(line, "\t")
			placed[k] = p
		}
		for _, v := range vectors {
			t.Run(fmt.Sprintf("%s/%s", topic.name, v.key), func(t *testing.T) {
				want := fmt.Sprintf("Partition:%d", (v.hash&0x7fffffff)%topic.n)
				if placed[v.key] != want {
					t.Fatalf("key %q landed on %s, want %s", v.key, placed[v.key], want)
				}
			})
		}
	}
	t.Run("foobar with 50 partitions is 16", func(t *testing.T) {
		if (int32(-790332482)&0x7fffffff)%50 != 16 {
			t.Fatal("reference vector arithmetic")
		}
	})
}

func TestGroupCommitsPrintedRecords(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if res, _, err := produce(t, addrs, ProducerOptions{Topic: "t", Reader: DefaultReaderConfig()}, nil, "a\nb\nc\nd\ne\n"); err != nil || res.Sent != 5 {
		t.Fatalf("produce %+v %v", res, err)
	}
	group := map[string]string{"group.id": "console-g"}
	out, n := consume(t, addrs, ConsumerOptions{Topic: "t", FromBeginning: true, MaxMessages: 3}, group)
	if n != 3 || out != "a\nb\nc\n" {
		t.Fatalf("first run printed %q", out)
	}
	adm := kadm.NewClient(clitest.Client(t, addrs))
	offs, err := adm.FetchOffsets(clitest.Context(t, 10*time.Second), "console-g")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup("t", 0); !ok || o.At != 3 {
		t.Fatalf("committed %+v, want offset 3 (the records printed)", o)
	}
	// A second run resumes after what was printed, and the group is left
	// empty when the consumer exits.
	out, n = consume(t, addrs, ConsumerOptions{Topic: "t", FromBeginning: true, Timeout: clitest.RecordWait}, group)
	if n != 2 || out != "d\ne\n" {
		t.Fatalf("second run printed %q", out)
	}
	clitest.Eventually(t, 10*time.Second, func() (bool, error) {
		gs, err := adm.DescribeGroups(clitest.Context(t, 5*time.Second), "console-g")
		if err != nil {
			return false, err
		}
		g := gs["console-g"]
		return g.State == "Empty", fmt.Errorf("group state %q with %d members", g.State, len(g.Members))
	})
}

func TestInterruptCommitsAndReturns(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if _, _, err := produce(t, addrs, ProducerOptions{Topic: "t", Reader: DefaultReaderConfig()}, nil, "a\nb\n"); err != nil {
		t.Fatal(err)
	}
	o := ConsumerOptions{Topic: "t", FromBeginning: true, Formatter: DefaultFormatterConfig()}
	cl, set, err := NewConsumerClient(config(addrs, map[string]string{"group.id": "sig"}), o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		n, err := Consume(ctx, cl, o, set, &out, io.Discard)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	clitest.Eventually(t, 10*time.Second, func() (bool, error) {
		return out.String() == "a\nb\n", fmt.Errorf("printed %q", out.String())
	})
	cancel() // what SIGINT does through signal.NotifyContext
	select {
	case n := <-done:
		if n != 2 {
			t.Fatalf("count %d", n)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Consume did not return after cancellation")
	}
	offs, err := kadm.NewClient(clitest.Client(t, addrs)).FetchOffsets(clitest.Context(t, 10*time.Second), "sig")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup("t", 0); !ok || o.At != 2 {
		t.Fatalf("committed %+v, want 2", o)
	}
}

func TestProduceFailures(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	t.Run("parse error stops reading after flushing earlier lines", func(t *testing.T) {
		rc := readerCfg(t, map[string]string{"parse.key": "true", "key.separator": ":"})
		res, _, err := produce(t, addrs, ProducerOptions{Topic: "t", Reader: rc}, nil, "k:1\nk:2\nbroken\nk:3\n")
		if err == nil || !strings.Contains(err.Error(), "No key separator found on line number 3: 'broken'") {
			t.Fatalf("error %v", err)
		}
		if res.Sent != 2 {
			t.Fatalf("sent %d, want the 2 lines before the bad one", res.Sent)
		}
	})
	t.Run("record too large fails and is reported", func(t *testing.T) {
		props := map[string]string{"max.request.size": "1024", "batch.size": "1024"}
		big := strings.Repeat("x", 4096)
		res, stderr, err := produce(t, addrs, ProducerOptions{Topic: "t", Reader: DefaultReaderConfig()}, props, "small\n"+big+"\n")
		if !errors.Is(err, ErrRecordsFailed) || res.Failed != 1 || res.Sent != 1 {
			t.Fatalf("got %+v, %v", res, err)
		}
		if !strings.HasPrefix(stderr, "ERROR Error when sending message to topic t with key: null, value: 4096 bytes with error: ") {
			t.Fatalf("stderr %q", stderr)
		}
	})
}

func TestConsumerValidate(t *testing.T) {
	cases := []struct {
		name string
		o    ConsumerOptions
		want string
	}{
		{"neither", ConsumerOptions{}, "Exactly one of include/topic is required."},
		{"both", ConsumerOptions{Topic: "a", Include: "b"}, "Exactly one of include/topic is required."},
		{"partition with include", ConsumerOptions{Include: "b", PartitionSet: true}, "The topic is required when partition is specified."},
		{"offset without partition", ConsumerOptions{Topic: "a", Offset: "3"}, "The partition is required when offset is specified."},
		{"offset with beginning", ConsumerOptions{Topic: "a", PartitionSet: true, Offset: "3", FromBeginning: true}, "Options from-beginning and offset cannot be specified together."},
		{"bad offset", ConsumerOptions{Topic: "a", PartitionSet: true, Offset: "-4"}, "The provided offset value is incorrect. Valid values are 'earliest', 'latest', or a non-negative long."},
		{"timestamp with beginning", ConsumerOptions{Topic: "a", FromTimestampSet: true, FromBeginning: true}, "Option from-timestamp cannot be used with from-beginning or offset."},
		{"ok", ConsumerOptions{Topic: "a", PartitionSet: true, Offset: "earliest"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	t.Run("from-beginning conflicts with auto.offset.reset", func(t *testing.T) {
		c := config("127.0.0.1:1", map[string]string{"auto.offset.reset": "latest"})
		_, _, err := NewConsumerClient(c, ConsumerOptions{Topic: "a", FromBeginning: true})
		if err == nil || !strings.HasPrefix(err.Error(), "Can't simultaneously specify --from-beginning and 'auto.offset.reset=latest'") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("group with partition", func(t *testing.T) {
		c := config("127.0.0.1:1", map[string]string{"group.id": "g"})
		_, _, err := NewConsumerClient(c, ConsumerOptions{Topic: "a", PartitionSet: true})
		if err == nil || err.Error() != "Options group and partition cannot be specified together." {
			t.Fatalf("error %v", err)
		}
	})
}

// TestMissingTopic: Kafka's console producer lets the broker create a
// missing topic (auto.create.topics.enable); a broker that does not gets a
// clear error, not a silent loss. The consumer of a missing topic or
// partition warns as the Java consumer does, instead of printing nothing.
func TestMissingTopic(t *testing.T) {
	t.Run("producer asks the broker to create the topic", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
		res, stderr, err := produce(t, addrs, ProducerOptions{Topic: "fresh", Reader: DefaultReaderConfig()}, nil, "a\nb\n")
		if err != nil || res.Sent != 2 {
			t.Fatalf("sent %+v, err %v, stderr %q", res, err, stderr)
		}
		out, n := consume(t, addrs, ConsumerOptions{Topic: "fresh", FromBeginning: true, MaxMessages: 2}, nil)
		if n != 2 || out != "a\nb\n" {
			t.Fatalf("read back %d: %q", n, out)
		}
	})
	t.Run("producer says the topic does not exist when the broker will not create it", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
		res, stderr, err := produce(t, addrs, ProducerOptions{Topic: "nope", Reader: DefaultReaderConfig()}, nil, "a\n")
		if !errors.Is(err, ErrRecordsFailed) || res.Failed != 1 {
			t.Fatalf("got %+v, %v", res, err)
		}
		if want := "topic nope does not exist and the broker did not create it"; !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
		if !strings.Contains(stderr, "UNKNOWN_TOPIC_OR_PARTITION") {
			t.Fatalf("stderr %q", stderr)
		}
	})
	t.Run("consumer warns", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
		cases := []struct {
			name string
			o    ConsumerOptions
			want string
		}{
			{"missing topic", ConsumerOptions{Topic: "nope"}, "WARN Error while fetching metadata: {nope=UNKNOWN_TOPIC_OR_PARTITION}: topic nope does not exist\n"},
			{"missing topic with a partition", ConsumerOptions{Topic: "nope", Partition: 0, PartitionSet: true}, "WARN Error while fetching metadata: {nope=UNKNOWN_TOPIC_OR_PARTITION}: topic nope does not exist\n"},
			{"missing partition", ConsumerOptions{Topic: "t", Partition: 5, PartitionSet: true}, "WARN Error while fetching metadata: {t-5=UNKNOWN_TOPIC_OR_PARTITION}: topic t has no partition 5 (it has 1)\n"},
			{"existing partition", ConsumerOptions{Topic: "t", Partition: 0, PartitionSet: true}, ""},
			{"existing topic", ConsumerOptions{Topic: "t"}, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				c.o.Timeout = 200 * time.Millisecond
				_, stderr, n := consumeStderr(t, addrs, c.o, nil)
				if n != 0 || stderr != c.want {
					t.Fatalf("read %d, stderr %q, want %q", n, stderr, c.want)
				}
			})
		}
	})
}
