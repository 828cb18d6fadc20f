package verifiable

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/clitest"
)

var (
	tsRE  = regexp.MustCompile(`"timestamp":\d+`)
	avgRE = regexp.MustCompile(`"avg_throughput":[0-9.E-]+`)
)

// normalize replaces what depends on the clock.
func normalize(b []byte) []byte {
	b = tsRE.ReplaceAll(b, []byte(`"timestamp":T`))
	return avgRE.ReplaceAll(b, []byte(`"avg_throughput":A`))
}

func cluster(t *testing.T) (string, *kgo.Client) {
	t.Helper()
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "vt"))
	return addrs, clitest.Client(t, addrs)
}

// The goldens under testdata are written by hand from the event classes of
// VerifiableProducer and VerifiableConsumer (Kafka 3.9) and the field
// order of Kafka's own output (timestamps and the average rate replaced
// by T and A), not from kafgo's output.
func TestProducerGolden(t *testing.T) {
	addrs, _ := cluster(t)
	prefix, keys := int64(7), int64(2)
	var out, warn bytes.Buffer
	pr, err := NewProducer(ProducerOptions{Topic: "vt", Bootstrap: addrs, MaxMessages: 3, Throughput: -1, Acks: -1, CreateTime: -1,
		ValuePrefix: &prefix, RepeatingKeys: &keys}, &out, &warn)
	if err != nil {
		t.Fatal(err)
	}
	pr.Run(clitest.Context(t, 30*time.Second))
	clitest.Golden(t, "producer.golden", normalize(out.Bytes()))
	if warn.Len() != 0 {
		t.Fatalf("warnings %q", warn.String())
	}
}

func TestConsumerGolden(t *testing.T) {
	addrs, cl := cluster(t)
	ctx := clitest.Context(t, 30*time.Second)
	var recs []*kgo.Record
	for i, v := range []string{"a", "b", "c"} {
		r := &kgo.Record{Topic: "vt", Value: []byte(v)}
		if i == 1 {
			r.Key = []byte("k")
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	o := DefaultConsumerOptions()
	o.Bootstrap, o.Topic, o.GroupID, o.MaxMessages, o.Verbose = addrs, "vt", "vg", 3, true
	var out, warn bytes.Buffer
	vc, err := NewConsumer(o, &out, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if err := vc.Run(ctx); err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "consumer.golden", normalize(out.Bytes()))
	offs, err := kadm.NewClient(cl).FetchOffsets(ctx, "vg")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup("vt", 0); !ok || o.At != 3 {
		t.Fatalf("committed %+v", o)
	}
}

func TestProducerStopsWhenCancelled(t *testing.T) {
	addrs, _ := cluster(t)
	var out, warn bytes.Buffer
	pr, err := NewProducer(ProducerOptions{Topic: "vt", Bootstrap: addrs, MaxMessages: -1, Throughput: 50, Acks: 1, CreateTime: -1}, &out, &warn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	pr.Run(ctx)
	got := string(normalize(out.Bytes()))
	if !regexp.MustCompile(`\{"timestamp":T,"name":"shutdown_complete"\}\n\{"timestamp":T,"name":"tool_data","sent":(\d+),"acked":(\d+),"target_throughput":50,"avg_throughput":A\}\n$`).MatchString(got) {
		t.Fatalf("%s", got)
	}
	if n := pr.sent.Load(); n < 5 || n > 30 {
		t.Fatalf("sent %d records in 0.3 s at 50/s", n)
	}
}
