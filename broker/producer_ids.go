package broker

import (
	"context"
	"sync"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// producerIDs hands out producer ids for InitProducerId from blocks of
// 1000 reserved in /latest_producer_id_block, as Kafka's ProducerIdManager
// does, so ids stay unique across brokers and restarts.
type producerIDs struct {
	store  meta.Store
	broker int32

	mu   sync.Mutex
	have bool  // a block is reserved
	next int64 // next id to hand out
	end  int64 // last id of the block, inclusive
}

func (p *producerIDs) Next(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.have || p.next > p.end {
		start, end, err := znode.AllocateProducerIDBlock(ctx, p.store, p.broker)
		if err != nil {
			return -1, err
		}
		p.next, p.end, p.have = start, end, true
	}
	id := p.next
	p.next++
	return id, nil
}
