package cliutil

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRecordBatchBytesIsKgosWeight: a record whose batch alone weighs
// exactly batch.size (RecordBatchBytes) is sent by a client capped by
// BatchCaps, and one byte more is refused by kgo, so the tools' choice
// between batching a record and sending it alone (Fits) matches kgo's.
func TestRecordBatchBytesIsKgosWeight(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	const limit = 1024
	b := &BatchCaps{BatchSize: limit, MaxRequest: DefaultMaxRequestSize}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, r := range []*kgo.Record{
		{Value: []byte("v")},
		{Key: []byte("key"), Value: []byte("value"), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("x")}, {Key: "n"}}},
		{Key: []byte(strings.Repeat("k", 300))},
	} {
		r.Topic = "t"
		pad := limit - RecordBatchBytes(r)
		r.Value = append(r.Value, strings.Repeat("p", int(pad))...)
		for RecordBatchBytes(r) > limit { // the value's length prefix grew
			r.Value = r.Value[:len(r.Value)-1]
		}
		if n := RecordBatchBytes(r); n != limit {
			t.Fatalf("cannot weigh a record at %d (got %d)", limit, n)
		}
		// A fresh client does not know the produce version yet and
		// weighs a batch at its largest (once it knows it speaks a
		// flexible version, a few bytes less).
		cl, err := kgo.NewClient(kgo.SeedBrokers(kc.ListenAddrs()...), kgo.ProducerBatchMaxBytesFn(b.Cap))
		if err != nil {
			t.Fatal(err)
		}
		over := *r
		over.Value = append(append([]byte{}, r.Value...), 'p')
		if err := cl.ProduceSync(ctx, &over).FirstErr(); !errors.Is(err, kerr.MessageTooLarge) || b.Fits(&over) {
			t.Errorf("a record one byte over the cap (%d): %v (fits %v), want MESSAGE_TOO_LARGE", RecordBatchBytes(&over), err, b.Fits(&over))
		}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil || !b.Fits(r) {
			t.Errorf("a record weighing exactly the cap: %v (fits %v)", err, b.Fits(r))
		}
		cl.Close()
	}
}

// TestBatchCaps: batch.size caps batches, the topic's max.message.bytes
// (once looked up) or max.request.size bounds every batch, and a record
// over that bound is refused with the Java producer's words.
func TestBatchCaps(t *testing.T) {
	b := &BatchCaps{BatchSize: DefaultBatchSize, MaxRequest: DefaultMaxRequestSize}
	if got := b.Cap("t"); got != DefaultBatchSize+kgoBatchPrefix {
		t.Errorf("cap %d, want batch.size", got)
	}
	b.topics = map[string]int32{"small": 4000}
	if got := b.Cap("small"); got != 4000+kgoBatchPrefix {
		t.Errorf("cap of small %d, want its max.message.bytes", got)
	}
	b.Largest(100000)
	if got := b.Cap("t"); got != 100000+kgoBatchPrefix {
		t.Errorf("cap with a 100000-byte record to come: %d", got)
	}
	r := &kgo.Record{Topic: "small", Value: make([]byte, 5000)}
	if err := b.Check(r); !errors.Is(err, kerr.MessageTooLarge) || !strings.HasSuffix(err.Error(), "The message is 5070 bytes when serialized which is larger than 4000, which is the value of the max.message.bytes configuration of topic small.") {
		t.Errorf("check: %v", err)
	}
	r = &kgo.Record{Topic: "t", Value: make([]byte, 2<<20)}
	if err := b.Check(r); err == nil || !strings.Contains(err.Error(), "which is the value of the max.request.size configuration.") {
		t.Errorf("check: %v", err)
	}
	if err := b.Check(&kgo.Record{Topic: "t", Value: make([]byte, 50000)}); err != nil {
		t.Errorf("a record within max.request.size: %v", err)
	}
}
