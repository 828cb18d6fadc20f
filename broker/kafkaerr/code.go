package kafkaerr

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/record"
	"kafgo/broker/sasl"
	"kafgo/broker/storage"
	"kafgo/broker/storage/vfs"
	"kafgo/broker/txn/txnrec"
	"kafgo/broker/wire"
	"kafgo/internal/uuid"
)

// sentinels is Kafka's error table for the broker's own sentinel errors:
// the code Kafka gives the same failure. Order matters where one error
// wraps another: storage errors that carry a record error come first.
var sentinels = []struct {
	err  error
	code *kerr.Error
}{
	// The log. A failed log dir comes first: its error also carries the
	// I/O error's cause.
	{storage.ErrStorage, kerr.KafkaStorageError},
	// A fault injected under the log by a test: an I/O error.
	{vfs.ErrInjected, kerr.KafkaStorageError},
	{storage.ErrOffsetOutOfRange, kerr.OffsetOutOfRange},
	{storage.ErrInvalidBatch, kerr.CorruptMessage},
	{storage.ErrBatchTooLarge, kerr.RecordListTooLarge},
	{storage.ErrInvalidProducerEpoch, kerr.InvalidProducerEpoch},
	{storage.ErrOutOfOrderSequence, kerr.OutOfOrderSequenceNumber},
	{storage.ErrUnknownProducerID, kerr.UnknownProducerID},
	{storage.ErrInvalidTxnState, kerr.InvalidTxnState},
	{storage.ErrCoordinatorFenced, kerr.TransactionCoordinatorFenced},
	{storage.ErrInconsistentTopicID, kerr.InconsistentTopicID},
	{storage.ErrInvalidConfig, kerr.InvalidConfig},
	// A log closed under a request: the partition was deleted or moved
	// away; the client finds its new home in the metadata.
	{storage.ErrClosed, kerr.NotLeaderForPartition},
	// A file that does not parse is a damaged disk to Kafka.
	{storage.ErrCorruptFile, kerr.KafkaStorageError},
	// Follower-side and start-up failures: nothing a client can act on.
	{storage.ErrUnexpectedAppendOffset, kerr.UnknownServerError},
	{storage.ErrOffsetsOutOfOrder, kerr.UnknownServerError},
	{storage.ErrInconsistentBrokerID, kerr.UnknownServerError},
	{storage.ErrInconsistentClusterID, kerr.UnknownServerError},
	{storage.ErrLogDirLocked, kerr.UnknownServerError},

	// Record batches.
	{record.ErrCorrupt, kerr.CorruptMessage},
	{record.ErrInvalid, kerr.InvalidRecord},
	{record.ErrTruncated, kerr.CorruptMessage},
	{record.ErrTooLarge, kerr.CorruptMessage},
	{record.ErrOtherMagic, kerr.InvalidRecord},

	// The metadata store (ZooKeeper). Unreachable or between sessions:
	// retriable, as Kafka's admin paths time out waiting for ZooKeeper.
	{meta.ErrConnectionLoss, kerr.RequestTimedOut},
	{meta.ErrSessionExpired, kerr.RequestTimedOut},
	{meta.ErrClosed, kerr.RequestTimedOut},
	// The rest are logic errors of the caller (a handler maps the ones it
	// expects, e.g. a node that exists to TOPIC_ALREADY_EXISTS).
	{meta.ErrNoNode, kerr.UnknownServerError},
	{meta.ErrNodeExists, kerr.UnknownServerError},
	{meta.ErrBadVersion, kerr.UnknownServerError},
	{meta.ErrNotEmpty, kerr.UnknownServerError},
	{meta.ErrNoChildrenForEphemerals, kerr.UnknownServerError},
	{meta.ErrInvalidPath, kerr.UnknownServerError},
	{meta.ErrRolledBack, kerr.UnknownServerError},
	{meta.ErrCorrupt, kerr.UnknownServerError},
	{znode.ErrProducerIDsExhausted, kerr.UnknownServerError},

	// Configuration values.
	{config.ErrUnknownKey, kerr.InvalidConfig},
	{config.ErrInvalidValue, kerr.InvalidConfig},
	{config.ErrReadOnly, kerr.InvalidConfig},
	{config.ErrUnsupported, kerr.InvalidConfig},
	{config.ErrDuplicateKey, kerr.InvalidRequest},

	// Inter-broker calls that lost their connection.
	{wire.ErrClientClosed, kerr.NetworkException},
	{wire.ErrServerClosed, kerr.NetworkException},
	{wire.ErrFrameTooLarge, kerr.UnknownServerError},
	{wire.ErrFrameTooSmall, kerr.UnknownServerError},
	{wire.ErrTruncated, kerr.UnknownServerError},
	{wire.ErrMalformedHeader, kerr.UnknownServerError},

	// Internal records that do not decode.
	{offsetsrec.ErrMalformed, kerr.UnknownServerError},
	{offsetsrec.ErrUnknownVersion, kerr.UnknownServerError},
	{txnrec.ErrMalformed, kerr.UnknownServerError},

	// Authentication and authorization.
	{acl.ErrInvalid, kerr.InvalidRequest},
	{sasl.ErrMalformed, kerr.SaslAuthenticationFailed},
	{sasl.ErrSessionExpired, kerr.SaslAuthenticationFailed},
	{sasl.ErrUnexpectedRequest, kerr.IllegalSaslState},
	{wire.ErrAuthentication, kerr.SaslAuthenticationFailed},
	{txnrec.ErrUnknownVersion, kerr.UnknownServerError},
	{uuid.ErrInvalid, kerr.UnknownServerError},

	// A request that ran out of time (or was abandoned) may be retried.
	{context.DeadlineExceeded, kerr.RequestTimedOut},
	{context.Canceled, kerr.RequestTimedOut},
}

// Code maps any error the broker's parts return onto Kafka's error table;
// it is the one mapping every handler uses. nil stays nil. An error that
// carries a Kafka code (a *kerr.Error, or an *Error from New) keeps it.
// The broker's sentinel errors get the code Kafka gives the same failure
// (see sentinels). Network errors are NETWORK_EXCEPTION; file-system and
// device errors, and only those, are KAFKA_STORAGE_ERROR. Anything else is
// UNKNOWN_SERVER_ERROR, which clients do not retry blindly.
func Code(err error) *kerr.Error {
	if err == nil {
		return nil
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.code
		}
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		return kerr.NetworkException
	}
	if isStorageIO(err) {
		return kerr.KafkaStorageError
	}
	return kerr.UnknownServerError
}

// isStorageIO reports whether err is a file-system or device failure
// (after network errors have been ruled out): a failed open, read, write,
// sync, rename or mmap.
func isStorageIO(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) || errors.As(err, &errno)
}
