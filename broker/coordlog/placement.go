package coordlog

import (
	"sync/atomic"

	"kafgo/broker/clusterview"
)

// Placement maps keys to the partitions of one internal topic.
type Placement struct {
	topic      string
	configured int32
	cache      *clusterview.Cache // nil in tests

	partitions atomic.Int32 // the topic's partition count once known
	creating   atomic.Bool  // a FindCoordinator is creating the topic
}

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
// now (no other creation is running); it then calls the returned func.
func (p *Placement) BeginTopicCreation() (func(), bool) {
	if !p.creating.CompareAndSwap(false, true) {
		return nil, false
	}
	return func() { p.creating.Store(false) }, true
}
