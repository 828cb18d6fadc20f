package coordlog

import (
	"sync/atomic"
	"time"

	"kafgo/broker/clusterview"
)

// Placement maps keys to the partitions of one internal topic.
type Placement struct {
	topic      string
	configured int32
	cache      *clusterview.Cache // nil in tests

	partitions atomic.Int32 // the topic's partition count once known
	creating   atomic.Bool  // a FindCoordinator is creating the topic
	// created is when a creation last succeeded or found the topic there
	// (unix ns): until the metadata shows it, every FindCoordinator would
	// otherwise try again.
	created atomic.Int64
}

// recreateAfter is how long after a creation no other is tried: the
// brokers learn of a new topic well within it, and a topic deleted since
// is created again after it.
const recreateAfter = 30 * time.Second

// NewPlacement places keys on topic: configured partitions until the topic
// exists in cache (which may be nil), then the topic's own count, which
// never changes for an internal topic.
func NewPlacement(topic string, configured int32, cache *clusterview.Cache) *Placement {
	return &Placement{topic: topic, configured: configured, cache: cache}
}

// Topic is the internal topic's name.
func (p *Placement) Topic() string { return p.topic }

// NumPartitions is the topic's partition count: its own once it exists,
// else the configured one.
func (p *Placement) NumPartitions() int32 {
	if n := p.partitions.Load(); n > 0 {
		return n
	}
	if p.cache != nil {
		if t, ok := p.cache.View().Topic(p.topic); ok && len(t.Partitions) > 0 {
			n := int32(len(t.Partitions))
			p.partitions.Store(n)
			return n
		}
	}
	return p.configured
}

// PartitionFor is the partition of a key.
func (p *Placement) PartitionFor(key string) int32 { return PartitionFor(key, p.NumPartitions()) }

// BeginTopicCreation reports whether the caller should create the topic
// now: no other creation is running and none succeeded lately. The caller
// then calls done, telling whether the topic exists now (created, or found
// there).
func (p *Placement) BeginTopicCreation() (done func(exists bool), ok bool) {
	if c := p.created.Load(); c != 0 && time.Since(time.Unix(0, c)) < recreateAfter {
		return nil, false
	}
	if !p.creating.CompareAndSwap(false, true) {
		return nil, false
	}
	return func(exists bool) {
		if exists {
			p.created.Store(time.Now().UnixNano())
		}
		p.creating.Store(false)
	}, true
}
