package storage

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Sentinel errors. Callers test them with errors.Is; the broker maps them to
// Kafka error codes (given in brackets).
var (
	// ErrStorage: the log's dir is offline after an I/O error (a failed
	// write, fsync, truncate, rename, index or checkpoint write: see
	// log_failure.go), or the process ran out of descriptors or memory
	// for the operation [56 KAFKA_STORAGE_ERROR].
	ErrStorage = kafkaerr.Sentinel(kerr.KafkaStorageError, "storage: log dir failed")
	// ErrOffsetOutOfRange: a read below the log start offset or above the
	// log end offset, or a log start offset beyond the end [1].
	ErrOffsetOutOfRange = kafkaerr.Sentinel(kerr.OffsetOutOfRange, "storage: offset out of range")
	// ErrInvalidBatch: bytes handed to an append do not form whole v2
	// batches, or their records cannot be walked [2 CORRUPT_MESSAGE].
	ErrInvalidBatch = kafkaerr.Sentinel(kerr.CorruptMessage, "storage: invalid record batch")
	// ErrBatchTooLarge: an append larger than segment.bytes can never fit
	// a segment [18 RECORD_LIST_TOO_LARGE].
	ErrBatchTooLarge = kafkaerr.Sentinel(kerr.RecordListTooLarge, "storage: record batch larger than the segment size")
	// ErrInvalidProducerEpoch: an idempotent batch from an older producer
	// epoch than the partition has seen [47].
	ErrInvalidProducerEpoch = kafkaerr.Sentinel(kerr.InvalidProducerEpoch, "storage: invalid producer epoch")
	// ErrOutOfOrderSequence: an idempotent batch whose first sequence does
	// not follow the producer's last one [45].
	ErrOutOfOrderSequence = kafkaerr.Sentinel(kerr.OutOfOrderSequenceNumber, "storage: out of order sequence number")
	// ErrUnknownProducerID: a batch with a non-zero first sequence from a
	// producer the partition has no state for [59].
	ErrUnknownProducerID = kafkaerr.Sentinel(kerr.UnknownProducerID, "storage: unknown producer id")
	// ErrInvalidTxnState: a non-transactional batch from a producer whose
	// transaction is still open [48 INVALID_TXN_STATE].
	ErrInvalidTxnState = kafkaerr.Sentinel(kerr.InvalidTxnState, "storage: invalid transaction state")
	// ErrCoordinatorFenced: a transaction marker whose coordinator epoch is
	// older than the one the producer's last marker carried
	// [52 TRANSACTION_COORDINATOR_FENCED].
	ErrCoordinatorFenced = kafkaerr.Sentinel(kerr.TransactionCoordinatorFenced, "storage: transaction coordinator fenced")
	// ErrUnexpectedAppendOffset: a follower append whose first batch starts
	// below the log end offset.
	ErrUnexpectedAppendOffset = kafkaerr.Sentinel(kerr.UnknownServerError, "storage: follower append starts below the log end offset")
	// ErrOffsetsOutOfOrder: a follower append whose batch offsets do not
	// increase.
	ErrOffsetsOutOfOrder = kafkaerr.Sentinel(kerr.UnknownServerError, "storage: follower append offsets are not increasing")
	// ErrClosed: the log (or manager) has been closed.
	ErrClosed = kafkaerr.Sentinel(kerr.NotLeaderForPartition, "storage: closed")
	// ErrCorruptFile: a checkpoint, snapshot, index or properties file does
	// not parse; the wrapping error names the file and position.
	ErrCorruptFile = kafkaerr.Sentinel(kerr.KafkaStorageError, "storage: corrupt file")
	// ErrInconsistentBrokerID: meta.properties names another broker.
	ErrInconsistentBrokerID = kafkaerr.Sentinel(kerr.UnknownServerError, "storage: inconsistent broker.id")
	// ErrInconsistentClusterID: meta.properties names another cluster.
	ErrInconsistentClusterID = kafkaerr.Sentinel(kerr.UnknownServerError, "storage: inconsistent cluster.id")
	// ErrInconsistentTopicID: partition.metadata names another topic id.
	ErrInconsistentTopicID = kafkaerr.Sentinel(kerr.InconsistentTopicID, "storage: inconsistent topic id")
	// ErrInvalidConfig: a LogConfig value out of Kafka's allowed range.
	ErrInvalidConfig = kafkaerr.Sentinel(kerr.InvalidConfig, "storage: invalid log config")
)
