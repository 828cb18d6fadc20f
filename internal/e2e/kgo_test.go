package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// TestKgoIdempotentKeyedRoundTrip: an idempotent franz-go producer with
// acks=all writes 100k keyed records to a 6-partition topic; a consumer
// reads them back: every record exactly once, in order per partition, and
// every key on one partition.
func TestKgoIdempotentKeyedRoundTrip(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic, partitions, n, keys = "orders", 6, 100_000, 1000

	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	prod := c.Client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	for i := 0; i < n; i++ {
		key := []byte("key-" + strconv.Itoa(i%keys))
		val := []byte(strconv.Itoa(i))
		prod.Produce(ctx, &kgo.Record{Key: key, Value: val}, func(r *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce %s: %v", r.Value, err)
			}
		})
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	cons := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	seen := make(map[int]bool, n)
	keyPartition := map[string]int32{}
	lastOffset := map[int32]int64{}
	lastValuePerKey := map[string]int{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d before the deadline", len(seen), n)
		}
		fs.EachError(func(tp string, p int32, err error) { t.Fatalf("fetch %s-%d: %v", tp, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			v, _ := strconv.Atoi(string(r.Value))
			if seen[v] {
				t.Fatalf("record %d delivered twice (partition %d offset %d)", v, r.Partition, r.Offset)
			}
			seen[v] = true
			k := string(r.Key)
			if p, ok := keyPartition[k]; ok && p != r.Partition {
				t.Fatalf("key %s on partitions %d and %d", k, p, r.Partition)
			}
			keyPartition[k] = r.Partition
			if last, ok := lastOffset[r.Partition]; ok && r.Offset != last+1 {
				t.Fatalf("partition %d: offset %d after %d", r.Partition, r.Offset, last)
			}
			lastOffset[r.Partition] = r.Offset
			if prev, ok := lastValuePerKey[k]; ok && prev > v {
				t.Fatalf("key %s: value %d after %d: per-key order broken", k, v, prev)
			}
			lastValuePerKey[k] = v
		})
	}
	// Offsets match the HW: nothing extra was written (no duplicates).
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != n {
		t.Fatalf("log end offsets sum to %d, want %d", total, n)
	}
	if len(lastOffset) != partitions {
		t.Fatalf("records landed on %d partitions, want %d: %v", len(lastOffset), partitions, fmt.Sprint(lastOffset))
	}
}
