package txn

import (
	"context"
	"sync"
)

// ProducerIDs hands out producer ids for InitProducerId (transactional and
// idempotent producers alike) from blocks reserved in the metadata store
// (/latest_producer_id_block), as Kafka's ProducerIdManager does, so ids
// stay unique across brokers and restarts.
type ProducerIDs struct {
	// reserve takes the next free block for this broker: its first and
	// last id, inclusive.
	reserve func(ctx context.Context) (start, end int64, err error)

	mu   sync.Mutex
	have bool  // a block is reserved
	next int64 // next id to hand out
	end  int64 // last id of the block, inclusive
}

// NewProducerIDs hands out ids from the blocks reserve takes (the broker
// gives znode.AllocateProducerIDBlock on its store).
func NewProducerIDs(reserve func(ctx context.Context) (start, end int64, err error)) *ProducerIDs {
	return &ProducerIDs{reserve: reserve}
}

// Next is the next producer id; a block is reserved when none is left.
func (p *ProducerIDs) Next(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.have || p.next > p.end {
		start, end, err := p.reserve(ctx)
		if err != nil {
			return -1, err
		}
		p.next, p.end, p.have = start, end, true
	}
	id := p.next
	p.next++
	return id, nil
}
