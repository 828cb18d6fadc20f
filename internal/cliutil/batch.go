package cliutil

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Java producer defaults for batching.
const (
	DefaultBatchSize      = 16384   // batch.size (the console producer's --max-partition-memory-bytes too)
	DefaultMaxRequestSize = 1048576 // max.request.size
)

// kgoMinBatchCap is the smallest batch cap kgo takes; it stands for Java's
// batch.size=0 (no batching).
const kgoMinBatchCap = 512

// BatchCaps sizes a producer's batches as Java's producer does, as far as
// kgo can: batches of small records grow to batch.size, never beyond a
// topic's max.message.bytes (the broker refuses a batch larger than that
// as a whole, where Java's producer would split it), and a record larger
// than batch.size is sent alone, up to the smaller of max.request.size and
// the topic's max.message.bytes (its Limit). kgo has one cap per topic
// and fails a record larger than it, so a tool that may meet such records
// either raises the cap to its largest record (Largest) or sends them
// through a second client capped at the Limit.
type BatchCaps struct {
	BatchSize  int32 // batch.size
	MaxRequest int32 // max.request.size

	mu      sync.Mutex
	topics  map[string]int32 // max.message.bytes, of the topics looked up
	largest int32            // the largest single-record batch to come
}

// Cap is the batch cap of topic, for kgo.ProducerBatchMaxBytesFn.
func (b *BatchCaps) Cap(topic string) int32 {
	b.mu.Lock()
	largest := b.largest
	b.mu.Unlock()
	limit, _ := b.Limit(topic)
	return b.kgoCap(min(max(b.BatchSize, largest), limit))
}

// LimitCap is the cap of a client that sends records alone: the Limit.
func (b *BatchCaps) LimitCap(topic string) int32 {
	limit, _ := b.Limit(topic)
	return b.kgoCap(limit)
}

// Fits reports whether a batch capped at Cap(topic) takes r alone.
func (b *BatchCaps) Fits(r *kgo.Record) bool {
	return RecordBatchBytes(r)+kgoBatchPrefix <= b.Cap(r.Topic)
}

// kgoCap is kgo's cap for batches of n bytes. kgo weighs a batch with the
// 4-byte length that precedes it in a produce request, and refuses a cap
// above its request cap (max.request.size), from which it takes the
// request's own overhead.
func (b *BatchCaps) kgoCap(n int32) int32 {
	return min(max(n, kgoMinBatchCap)+kgoBatchPrefix, max(b.MaxRequest, kgoMinBatchCap))
}

// kgoBatchPrefix is the records array length kgo counts in a batch's size.
const kgoBatchPrefix = 4

// Limit is the largest batch topic takes, and the config that sets it:
// max.request.size, or the topic's max.message.bytes when smaller.
func (b *BatchCaps) Limit(topic string) (int32, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n, ok := b.topics[topic]; ok && n < b.MaxRequest {
		return n, "max.message.bytes configuration of topic " + topic
	}
	return b.MaxRequest, "max.request.size configuration"
}

// Largest raises the cap to a batch holding one record of n bytes
// (RecordBatchBytes), for a tool that knows its records in advance.
func (b *BatchCaps) Largest(n int32) {
	b.mu.Lock()
	b.largest = max(b.largest, n)
	b.mu.Unlock()
}

// LookUp learns topic's max.message.bytes (the broker's message.max.bytes
// unless the topic overrides it). It must run before the client first
// produces to topic: kgo asks for a partition's cap once. A topic that does
// not exist yet, or may not be described, keeps max.request.size as its
// limit, and a batch too large for it is refused by the broker.
func (b *BatchCaps) LookUp(ctx context.Context, cl *kgo.Client, topic string) {
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return
	}
	rc, err := rcs.On(topic, nil)
	if err != nil || rc.Err != nil {
		return
	}
	for _, c := range rc.Configs {
		if c.Key != "max.message.bytes" || c.Value == nil {
			continue
		}
		if n, err := strconv.ParseInt(*c.Value, 10, 32); err == nil && n > 0 {
			b.mu.Lock()
			if b.topics == nil {
				b.topics = map[string]int32{}
			}
			b.topics[topic] = int32(n)
			b.mu.Unlock()
		}
	}
}

// Check returns the error of a record that no batch can carry: one larger,
// alone, than its topic's Limit. It wraps kerr.MessageTooLarge and says
// why in the Java producer's words.
func (b *BatchCaps) Check(r *kgo.Record) error {
	size := RecordBatchBytes(r)
	limit, which := b.Limit(r.Topic)
	if size <= limit {
		return nil
	}
	return fmt.Errorf("%w: The message is %d bytes when serialized which is larger than %d, which is the value of the %s.",
		kerr.MessageTooLarge, size, limit, which)
}

// recordBatchOverhead is a v2 record batch's header: base offset, length,
// partition leader epoch, magic, CRC, attributes, last offset delta, first
// and max timestamps, producer id and epoch, base sequence, record count.
const recordBatchOverhead = 8 + 4 + 4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4

// RecordBatchBytes is the size of an uncompressed v2 batch holding r
// alone: what max.message.bytes and a batch cap weigh it at.
func RecordBatchBytes(r *kgo.Record) int32 {
	body := 1 + 1 + 1 // attributes, timestamp delta 0, offset delta 0
	body += bytesField(r.Key) + bytesField(r.Value) + varintLen(int64(len(r.Headers)))
	for _, h := range r.Headers {
		body += varintLen(int64(len(h.Key))) + len(h.Key) + bytesField(h.Value)
	}
	return int32(recordBatchOverhead + varintLen(int64(body)) + body)
}

// bytesField is a nullable varint-length byte field's size.
func bytesField(b []byte) int {
	if b == nil {
		return varintLen(-1)
	}
	return varintLen(int64(len(b))) + len(b)
}

// varintLen is the size of v as a zigzag varint.
func varintLen(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
