package coordlog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"kafgo/broker/record"
)

// maxDecompressedBatch bounds one decompressed batch during a load; the
// coordinators write small batches, so only a corrupt or hostile one comes
// near it.
const maxDecompressedBatch = 64 << 20

// loadRetry is how long a load waits after a read failure before trying
// again (while still leader).
const loadRetry = time.Second

// BatchInfo is what a visitor learns about the batch of a record.
type BatchInfo struct {
	ProducerID    int64 // -1 for a non-idempotent batch
	ProducerEpoch int16
	Transactional bool
}

// Visitor folds a partition's records into a coordinator's state.
type Visitor interface {
	// Record is one record with a key, at its log offset; value is nil for
	// a tombstone. An error only skips the record (it is logged).
	Record(b BatchInfo, offset int64, key, value []byte) error
	// Marker is a transaction's COMMIT (commit=true) or ABORT control
	// record, which ends the batch's producer's open transaction.
	Marker(b BatchInfo, commit bool)
}

// Replayer reads one internal topic's partitions for a coordinator.
type Replayer struct {
	Log     Log
	Topic   string
	BufSize int32 // offsets.load.buffer.size, transaction.state.log.load.buffer.size
	Logger  *slog.Logger
}

// Load replays partition p into a fresh visitor from its log start to the
// log end offset as of the start of the load. A read failure starts over
// with a fresh visitor after a pause; false means ctx ended first (the
// shard's leadership was lost: its owner cancels the shard's context).
func Load[V Visitor](ctx context.Context, r Replayer, p int32, fresh func() V) (V, bool) {
	for {
		v := fresh()
		err := r.replay(ctx, p, v)
		if err == nil {
			return v, ctx.Err() == nil
		}
		r.Logger.Error("loading "+r.Topic+" failed; retrying", "partition", p, "err", err)
		select {
		case <-ctx.Done():
			return v, false
		case <-time.After(loadRetry):
		}
	}
}

func (r Replayer) replay(ctx context.Context, p int32, v Visitor) error {
	start, end, err := r.Log.Bounds(p)
	if err != nil {
		return err
	}
	for pos := start; pos < end; {
		if ctx.Err() != nil {
			return nil
		}
		buf, err := r.Log.Read(p, pos, r.BufSize, end)
		if err != nil {
			return err
		}
		if len(buf) == 0 {
			break // nothing below end from pos on (a gap left by compaction)
		}
		from := pos
		it := record.NewBatchIter(buf)
		for it.Next() {
			h := it.Header()
			next := h.NextOffset()
			if next <= pos {
				continue
			}
			r.batch(p, pos, it.Raw(), &h, v)
			pos = next
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("coordlog: reading %s-%d at %d: %w", r.Topic, p, pos, err)
		}
		if pos == from {
			return fmt.Errorf("coordlog: reading %s-%d: no progress at offset %d", r.Topic, p, pos)
		}
	}
	return nil
}

// batch feeds one batch's records at or after pos to v.
func (r Replayer) batch(p int32, pos int64, raw []byte, h *record.BatchHeader, v Visitor) {
	info := BatchInfo{ProducerID: h.ProducerID, ProducerEpoch: h.ProducerEpoch, Transactional: h.IsTransactional()}
	b, err := record.ParseBatch(raw, maxDecompressedBatch)
	if err != nil {
		// A torn tail never reaches here (the log recovered it); a bad
		// batch is skipped rather than blocking the coordinator for good.
		r.Logger.Error("skipping unreadable "+r.Topic+" batch", "partition", p, "offset", h.BaseOffset, "err", err)
		return
	}
	if h.IsControl() {
		if len(b.Records) == 0 {
			return
		}
		k, err := record.ParseControlKey(b.Records[0].Key)
		if err != nil {
			r.Logger.Warn("skipping undecodable control record", "topic", r.Topic, "partition", p, "offset", h.BaseOffset, "err", err)
			return
		}
		switch k.Type {
		case record.ControlCommit:
			v.Marker(info, true)
		case record.ControlAbort:
			v.Marker(info, false)
		}
		return
	}
	for i := range b.Records {
		rec := &b.Records[i]
		off := h.OffsetOf(rec)
		if off < pos || rec.Key == nil {
			continue
		}
		if err := v.Record(info, off, rec.Key, rec.Value); err != nil {
			r.Logger.Warn("skipping undecodable "+r.Topic+" record", "partition", p, "offset", off, "err", err)
		}
	}
}
