package storage

import "errors"

// Sentinel errors. Callers test them with errors.Is; the broker maps them to
// Kafka error codes (given in brackets).
var (
	// ErrStorage: the log's dir is offline after an I/O error (a failed
	// write, fsync, truncate, rename, index or checkpoint write: see
	// log_failure.go), or the process ran out of descriptors or memory
	// for the operation [56 KAFKA_STORAGE_ERROR].
	ErrStorage = errors.New("storage: log dir failed")
	// ErrOffsetOutOfRange: a read below the log start offset or above the
	// log end offset, or a log start offset beyond the end [1].
	ErrOffsetOutOfRange = errors.New("storage: offset out of range")
	// ErrInvalidBatch: bytes handed to an append do not form whole v2
	// batches, or their records cannot be walked [2 CORRUPT_MESSAGE].
	ErrInvalidBatch = errors.New("storage: invalid record batch")
	// ErrBatchTooLarge: an append larger than segment.bytes can never fit
	// a segment [18 RECORD_LIST_TOO_LARGE].
	ErrBatchTooLarge = errors.New("storage: record batch larger than the segment size")
	// ErrInvalidProducerEpoch: an idempotent batch from an older producer
	// epoch than the partition has seen [47].
	ErrInvalidProducerEpoch = errors.New("storage: invalid producer epoch")
	// ErrOutOfOrderSequence: an idempotent batch whose first sequence does
	// not follow the producer's last one [45].
	ErrOutOfOrderSequence = errors.New("storage: out of order sequence number")
	// ErrUnknownProducerID: a batch with a non-zero first sequence from a
	// producer the partition has no state for [59].
	ErrUnknownProducerID = errors.New("storage: unknown producer id")
	// ErrInvalidTxnState: a non-transactional batch from a producer whose
	// transaction is still open [48 INVALID_TXN_STATE].
	ErrInvalidTxnState = errors.New("storage: invalid transaction state")
	// ErrCoordinatorFenced: a transaction marker whose coordinator epoch is
	// older than the one the producer's last marker carried
	// [52 TRANSACTION_COORDINATOR_FENCED].
	ErrCoordinatorFenced = errors.New("storage: transaction coordinator fenced")
	// ErrUnexpectedAppendOffset: a follower append whose first batch starts
	// below the log end offset.
	ErrUnexpectedAppendOffset = errors.New("storage: follower append starts below the log end offset")
	// ErrOffsetsOutOfOrder: a follower append whose batch offsets do not
	// increase.
	ErrOffsetsOutOfOrder = errors.New("storage: follower append offsets are not increasing")
	// ErrClosed: the log (or manager) has been closed.
	ErrClosed = errors.New("storage: closed")
	// ErrCorruptFile: a checkpoint, snapshot, index or properties file does
	// not parse; the wrapping error names the file and position.
	ErrCorruptFile = errors.New("storage: corrupt file")
	// ErrInconsistentBrokerID: meta.properties names another broker.
	ErrInconsistentBrokerID = errors.New("storage: inconsistent broker.id")
	// ErrInconsistentClusterID: meta.properties names another cluster.
	ErrInconsistentClusterID = errors.New("storage: inconsistent cluster.id")
	// ErrInconsistentTopicID: partition.metadata names another topic id.
	ErrInconsistentTopicID = errors.New("storage: inconsistent topic id")
	// ErrInvalidConfig: a LogConfig value out of Kafka's allowed range.
	ErrInvalidConfig = errors.New("storage: invalid log config")
)
