package group

import "kafgo/broker/coordlog"

// Log is the coordinator's access to the __consumer_offsets partitions this
// broker leads. The broker passes one over its replica manager; tests pass
// an in-memory fake.
type Log interface {
	coordlog.Log
	// ProducerSequence is the epoch and last sequence number the
	// partition's producer state holds for a producer, ok=false when it
	// has none. Transactional offset commits are written as that
	// producer's batches and continue its sequence, so the partition's
	// idempotence checks accept them and never take one for a duplicate.
	ProducerSequence(p int32, producerID int64) (epoch int16, lastSeq int32, ok bool)
}

// AppendResult is an append in flight.
type AppendResult = coordlog.AppendResult
