package metrics

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TopicStats are Kafka's BrokerTopicMetrics of one topic: counters the
// request path adds to through a handle it keeps (replica.Partition holds
// its topic's), so recording is an atomic add and nothing else.
type TopicStats struct {
	MessagesIn          atomic.Uint64 // records appended by this broker as leader
	BytesIn             atomic.Uint64 // bytes of those appends
	BytesOut            atomic.Uint64 // record bytes read for consumers
	BytesRejected       atomic.Uint64 // bytes of produced batches refused as too large or corrupt
	FailedProduce       atomic.Uint64 // partition appends that failed unexpectedly (see ProduceFailure)
	FailedFetch         atomic.Uint64 // partition reads that failed unexpectedly (see FetchFailure)
	TotalProduce        atomic.Uint64 // partition appends attempted
	TotalFetch          atomic.Uint64 // partition reads answered (consumers and followers)
	ReplicationBytesIn  atomic.Uint64 // bytes a follower replica here fetched and appended
	ReplicationBytesOut atomic.Uint64 // record bytes read for followers

	refs int // partitions holding the handle; guarded by Topics.mu
}

// TopicCounts is a copy of a TopicStats.
type TopicCounts struct {
	MessagesIn, BytesIn, BytesOut, BytesRejected uint64
	FailedProduce, FailedFetch                   uint64
	TotalProduce, TotalFetch                     uint64
	ReplicationBytesIn, ReplicationBytesOut      uint64
}

// Counts reads the counters.
func (t *TopicStats) Counts() TopicCounts {
	return TopicCounts{
		MessagesIn: t.MessagesIn.Load(), BytesIn: t.BytesIn.Load(), BytesOut: t.BytesOut.Load(),
		BytesRejected: t.BytesRejected.Load(), FailedProduce: t.FailedProduce.Load(), FailedFetch: t.FailedFetch.Load(),
		TotalProduce: t.TotalProduce.Load(), TotalFetch: t.TotalFetch.Load(),
		ReplicationBytesIn: t.ReplicationBytesIn.Load(), ReplicationBytesOut: t.ReplicationBytesOut.Load(),
	}
}

func (c *TopicCounts) add(o TopicCounts) {
	c.MessagesIn += o.MessagesIn
	c.BytesIn += o.BytesIn
	c.BytesOut += o.BytesOut
	c.BytesRejected += o.BytesRejected
	c.FailedProduce += o.FailedProduce
	c.FailedFetch += o.FailedFetch
	c.TotalProduce += o.TotalProduce
	c.TotalFetch += o.TotalFetch
	c.ReplicationBytesIn += o.ReplicationBytesIn
	c.ReplicationBytesOut += o.ReplicationBytesOut
}

// Appended records a successful leader append of one partition.
func (t *TopicStats) Appended(records, bytes int) {
	t.TotalProduce.Add(1)
	t.MessagesIn.Add(uint64(records))
	t.BytesIn.Add(uint64(bytes))
}

// ProduceFailed records a partition whose produce was refused or failed,
// with the size of its records, classified as Kafka's ReplicaManager
// does (ProduceFailure).
func (t *TopicStats) ProduceFailed(code int16, bytes int) {
	t.TotalProduce.Add(1)
	switch ProduceFailure(code) {
	case Rejected:
		t.BytesRejected.Add(uint64(bytes))
	case Failed:
		t.FailedProduce.Add(1)
	}
}

// Fetched records one partition's read: its bytes on success, or its
// error (code != 0) classified as Kafka does (FetchFailure).
func (t *TopicStats) Fetched(follower bool, code int16, bytes int64) {
	t.TotalFetch.Add(1)
	switch {
	case code != 0:
		if FetchFailure(code) == Failed {
			t.FailedFetch.Add(1)
		}
	case bytes == 0:
	case follower:
		t.ReplicationBytesOut.Add(uint64(bytes))
	default:
		t.BytesOut.Add(uint64(bytes))
	}
}

// Failure classifies a partition error for BrokerTopicMetrics.
type Failure int

const (
	// Expected errors (not leader, unknown partition, offset out of
	// range, ...) are the client's to handle and count nowhere.
	Expected Failure = iota
	// Failed errors count in Failed{Produce,Fetch}RequestsPerSec: Kafka
	// means them to show unexpected failures of the broker (or of the
	// request's content, for produce validation).
	Failed
	// Rejected produce errors (batch too large, corrupt) count their bytes
	// in BytesRejectedPerSec instead.
	Rejected
)

// ProduceFailure is Kafka 2.8's ReplicaManager.appendToLocalLog
// classification: unknown partition, not leader and storage errors are
// expected; record (batch) too large and corrupt records are rejected
// bytes; anything else (invalid records and timestamps, NOT_ENOUGH_REPLICAS,
// producer fencing and sequence errors, internal topics) is a failed
// produce.
func ProduceFailure(code int16) Failure {
	switch code {
	case 0, kerr.UnknownTopicOrPartition.Code, kerr.NotLeaderForPartition.Code, kerr.KafkaStorageError.Code:
		return Expected
	case kerr.MessageTooLarge.Code, kerr.RecordListTooLarge.Code, kerr.CorruptMessage.Code:
		return Rejected
	}
	return Failed
}

// FetchFailure is Kafka 2.8's ReplicaManager.readFromLocalLog
// classification: unknown partition, not leader, leader epoch fencing,
// replica not available, storage errors and offset out of range are
// expected; anything else is a failed fetch.
func FetchFailure(code int16) Failure {
	switch code {
	case 0, kerr.UnknownTopicOrPartition.Code, kerr.NotLeaderForPartition.Code, kerr.UnknownLeaderEpoch.Code,
		kerr.FencedLeaderEpoch.Code, kerr.ReplicaNotAvailable.Code, kerr.KafkaStorageError.Code, kerr.OffsetOutOfRange.Code:
		return Expected
	}
	return Failed
}

// Topics hands out per-topic counters and keeps the all-topics total. A
// topic's counters live while some partition holds them; when the last
// releases them their counts move into the total's base, so the total never
// goes down. A nil *Topics hands out a shared throwaway handle, for
// components built without a registry (tests).
type Topics struct {
	mu      sync.Mutex
	topics  map[string]*TopicStats
	removed TopicCounts // counts of released topics, kept in the total
}

// NewTopics returns an empty set.
func NewTopics() *Topics { return &Topics{topics: map[string]*TopicStats{}} }

// discard absorbs the counts of components without a registry.
var discard = &TopicStats{}

// Acquire returns topic's counters, creating them, and counts one more
// holder; each Acquire is paired with a Release.
func (ts *Topics) Acquire(topic string) *TopicStats {
	if ts == nil {
		return discard
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.topics[topic]
	if t == nil {
		t = &TopicStats{}
		ts.topics[topic] = t
	}
	t.refs++
	return t
}

// Release drops one holder of topic's counters; the last one removes them
// (Kafka removes a topic's metrics when its partitions leave the broker).
// Adds made through a handle after its release are lost, never counted
// twice.
func (ts *Topics) Release(topic string) {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.topics[topic]
	if t == nil {
		return
	}
	if t.refs--; t.refs > 0 {
		return
	}
	ts.removed.add(t.Counts())
	delete(ts.topics, topic)
}

// Lookup returns a topic's counters if some partition holds them, for the
// rare paths that have no partition at hand.
func (ts *Topics) Lookup(topic string) (*TopicStats, bool) {
	if ts == nil {
		return nil, false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.topics[topic]
	return t, ok
}

// TopicSnapshot is one topic's counts.
type TopicSnapshot struct {
	Topic string
	TopicCounts
}

// Snapshot returns every live topic's counts, sorted by name, and the
// all-topics total (the live topics plus those released).
func (ts *Topics) Snapshot() (topics []TopicSnapshot, total TopicCounts) {
	if ts == nil {
		return nil, TopicCounts{}
	}
	ts.mu.Lock()
	total = ts.removed
	for name, t := range ts.topics {
		c := t.Counts()
		total.add(c)
		topics = append(topics, TopicSnapshot{Topic: name, TopicCounts: c})
	}
	ts.mu.Unlock()
	sort.Slice(topics, func(i, j int) bool { return topics[i].Topic < topics[j].Topic })
	return topics, total
}
