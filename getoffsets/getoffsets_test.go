package getoffsets

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/clitest"
)

// The goldens under testdata are written by hand from GetOffsetShell's
// output format (Kafka 3.9: "topic:partition:offset", sorted by the string
// topic-partition), not from kafgo's output.
func TestGetOffsetsGolden(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
	cl := clitest.Client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx := clitest.Context(t, 30*time.Second)
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 12, 1, nil, "b"); err != nil {
		t.Fatal(err)
	}
	for i, ts := range []int64{1000, 2000, 3000} {
		r := &kgo.Record{Topic: "a", Partition: 0, Value: []byte{byte(i)}, Timestamp: time.UnixMilli(ts)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	run := func(o Options) (string, string, error) {
		var out, errOut bytes.Buffer
		err := Run(ctx, cl, o, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	for _, c := range []struct {
		golden string
		o      Options
	}{
		{"patterns-latest.golden", Options{TopicPartitions: "a:0-2,b:10-", TopicPartitionsSet: true}},
		{"topic-partitions-sorted.golden", Options{Topic: "b", TopicSet: true, Partitions: "2,10", PartitionsSet: true}},
		{"timestamp.golden", Options{Topic: "a", TopicSet: true, Time: "1500"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, err := run(c.o)
			if err != nil || errOut != "" {
				t.Fatalf("%v %q", err, errOut)
			}
			clitest.Golden(t, c.golden, []byte(out))
		})
	}
	t.Run("earliest and max-timestamp", func(t *testing.T) {
		if out, _, err := run(Options{TopicPartitions: "a:0", TopicPartitionsSet: true, Time: "-2"}); err != nil || out != "a:0:0\n" {
			t.Fatalf("%q %v", out, err)
		}
		// A timestamp after the last record has no offset: no line.
		if out, _, err := run(Options{TopicPartitions: "a:0", TopicPartitionsSet: true, Time: "99999"}); err != nil || out != "" {
			t.Fatalf("%q %v", out, err)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			o    Options
			want string
		}{
			{Options{Topic: "nothing", TopicSet: true}, "Error occurred: Could not match any topic-partitions with the specified filters\n"},
			{Options{TopicPartitionsSet: true, TopicSet: true}, "Error occurred: --topic-partitions cannot be used with --topic or --partitions\n"},
			{Options{Time: "yesterday"}, "Error occurred: Malformed time argument yesterday. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp\n"},
			{Options{Partitions: "1,x", PartitionsSet: true}, "Error occurred: --partitions expects a comma separated list of numeric partition ids, but received: 1,x\n"},
			{Options{TopicPartitions: "a:x", TopicPartitionsSet: true}, "Error occurred: Invalid rule specification: a:x\n"},
		} {
			_, errOut, err := run(c.o)
			if err == nil || errOut != c.want {
				t.Errorf("%+v: %v %q, want %q", c.o, err, errOut, c.want)
			}
		}
	})
}

func TestFilters(t *testing.T) {
	f, err := TopicPartitionsFilter("t1:1,t2:0-3,t3,t4:5-,t5:-3,:7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		topic string
		p     int32
		want  bool
	}{
		{"t1", 1, true}, {"t1", 2, false}, {"t2", 2, true}, {"t2", 3, false}, {"t3", 99, true},
		{"t4", 4, false}, {"t4", 5, true}, {"t5", 2, true}, {"t5", 3, false}, {"other", 7, true}, {"other", 6, false},
		{"t10", 1, false},
	} {
		if got := f.PartitionAllowed(c.topic, c.p); got != c.want {
			t.Errorf("%s:%d allowed %v, want %v", c.topic, c.p, got, c.want)
		}
	}
	g, err := TopicAndPartitionsFilter(`"ord.*, pay"`, true, "")
	if err != nil || !g.TopicAllowed("orders") || !g.TopicAllowed("pay") || g.TopicAllowed("payments") {
		t.Fatalf("comma list: %v", err)
	}
	if _, err := TopicAndPartitionsFilter("(", true, ""); err == nil || !strings.Contains(err.Error(), "is an invalid regex") {
		t.Fatal(err)
	}
}
