package znode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
)

// ProducerIDBlockSize is how many producer ids a broker takes at a time
// (ProducerIdManager.PidBlockSize).
const ProducerIDBlockSize = 1000

// ProducerIDBlock is /latest_producer_id_block, the last block handed out;
// the bounds are strings, as Kafka writes them:
//
//	{"version":1,"broker":1,"block_start":"0","block_end":"999"}
type ProducerIDBlock struct {
	BrokerID   int32
	BlockStart int64
	BlockEnd   int64 // inclusive
}

// Marshal encodes the block.
func (b ProducerIDBlock) Marshal() ([]byte, error) {
	if b.BlockStart < 0 || b.BlockEnd < b.BlockStart {
		return nil, marshalErr("producer id block", fmt.Errorf("bad range [%d, %d]", b.BlockStart, b.BlockEnd))
	}
	var o object
	o.field("version", 1)
	o.field("broker", b.BrokerID)
	o.field("block_start", strconv.FormatInt(b.BlockStart, 10))
	o.field("block_end", strconv.FormatInt(b.BlockEnd, 10))
	return o.bytes()
}

// Unmarshal decodes the block; the bounds may be strings or numbers.
func (b *ProducerIDBlock) Unmarshal(data []byte) error {
	const what = "/latest_producer_id_block"
	var v struct {
		Broker *int32   `json:"broker"`
		Start  *flexInt `json:"block_start"`
		End    *flexInt `json:"block_end"`
	}
	if err := decode(what, data, &v); err != nil {
		return err
	}
	if v.Broker == nil || v.Start == nil || v.End == nil || *v.Start < 0 || *v.End < *v.Start {
		return parseErr(what, "bad block %s", data)
	}
	*b = ProducerIDBlock{BrokerID: *v.Broker, BlockStart: int64(*v.Start), BlockEnd: int64(*v.End)}
	return nil
}

// ParseProducerIDBlock decodes /latest_producer_id_block.
func ParseProducerIDBlock(data []byte) (ProducerIDBlock, error) {
	var b ProducerIDBlock
	err := b.Unmarshal(data)
	return b, err
}

// ErrProducerIDsExhausted means no block of ProducerIDBlockSize fits below
// math.MaxInt64 any more.
var ErrProducerIDsExhausted = kafkaerr.Sentinel(kerr.UnknownServerError, "znode: producer ids exhausted")

// maxAllocateAttempts bounds the compare-and-set loop; each failed attempt
// means another broker got a block, so this many in a row is pathological.
const maxAllocateAttempts = 1000

// AllocateProducerIDBlock reserves the next block of ProducerIDBlockSize
// producer ids for brokerID and returns its inclusive bounds, as Kafka 2.x's
// ProducerIdManager: read /latest_producer_id_block with its version, write
// the following block with a Set conditional on that version, and retry on
// a version conflict. Concurrent allocators (other brokers, or goroutines of
// one broker) therefore never get overlapping blocks. An empty or missing
// znode starts at 0. If the outcome of a write is unknown (connection loss,
// context end) the error is returned; the block may then be lost, which
// wastes ids but never duplicates them.
func AllocateProducerIDBlock(ctx context.Context, s meta.Store, brokerID int32) (start, end int64, err error) {
	for range maxAllocateAttempts {
		data, st, err := s.Get(ctx, LatestProducerIDBlockPath)
		if errors.Is(err, meta.ErrNoNode) {
			if err := meta.EnsurePath(ctx, s, LatestProducerIDBlockPath); err != nil {
				return 0, 0, fmt.Errorf("znode: allocate producer ids: %w", err)
			}
			continue
		}
		if err != nil {
			return 0, 0, fmt.Errorf("znode: allocate producer ids: %w", err)
		}
		next := ProducerIDBlock{BrokerID: brokerID, BlockStart: 0, BlockEnd: ProducerIDBlockSize - 1}
		if len(bytes.TrimSpace(data)) > 0 {
			cur, err := ParseProducerIDBlock(data)
			if err != nil {
				return 0, 0, fmt.Errorf("znode: allocate producer ids: %w", err)
			}
			if cur.BlockEnd > math.MaxInt64-ProducerIDBlockSize {
				return 0, 0, ErrProducerIDsExhausted
			}
			next.BlockStart, next.BlockEnd = cur.BlockEnd+1, cur.BlockEnd+ProducerIDBlockSize
		}
		enc, err := next.Marshal()
		if err != nil {
			return 0, 0, err
		}
		_, err = s.Set(ctx, LatestProducerIDBlockPath, enc, st.Version)
		if err == nil {
			return next.BlockStart, next.BlockEnd, nil
		}
		if !errors.Is(err, meta.ErrBadVersion) {
			return 0, 0, fmt.Errorf("znode: allocate producer ids: %w", err)
		}
	}
	return 0, 0, fmt.Errorf("znode: allocate producer ids: %d version conflicts in a row", maxAllocateAttempts)
}
