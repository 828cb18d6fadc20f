package coordlog

import (
	"context"
	"time"
)

// Log is a coordinator's access to the partitions of its internal topic
// that this broker leads. The broker implements it over its replica
// manager; tests pass in-memory fakes.
type Log interface {
	// Append appends one batch to partition p as its leader with the given
	// acks, returning at once. Errors are *kerr.Error values (NOT_LEADER,
	// NOT_ENOUGH_REPLICAS, MESSAGE_TOO_LARGE, KAFKA_STORAGE_ERROR...).
	Append(p int32, acks int16, batch []byte) (AppendResult, error)
	// Read returns whole batches from the one containing offset on, at
	// least one batch and about maxBytes, none reaching end.
	Read(p int32, offset int64, maxBytes int32, end int64) ([]byte, error)
	// Bounds returns the partition's log start and log end offsets.
	Bounds(p int32) (start, end int64, err error)
}

// AppendResult is an append in flight.
type AppendResult struct {
	FirstOffset int64 // offset of the batch's first record
	// Wait blocks until the append is replicated as acks asked (acks=all:
	// the high watermark passed it), timeout passes (REQUEST_TIMED_OUT) or
	// ctx ends. Nil means nothing to wait for.
	Wait func(ctx context.Context, timeout time.Duration) error
}

// Await waits for the append as Wait does; a nil Wait returns at once.
func (r AppendResult) Await(ctx context.Context, timeout time.Duration) error {
	if r.Wait == nil {
		return nil
	}
	return r.Wait(ctx, timeout)
}
