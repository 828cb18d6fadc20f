package broker

import (
	"log/slog"
	"time"

	"kafgo/broker/config"
	"kafgo/broker/group"
	"kafgo/broker/record"
	"kafgo/broker/txn"
)

// The coordinators take plain config structs, as storage, replica and the
// controller do; the broker's settings are translated here, in the wiring,
// so the coordinators do not compile against the broker config (and the
// security stack it parses).

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// groupConfig takes the group coordinator's settings from a broker config.
func groupConfig(b *config.Broker, logger *slog.Logger) group.Config {
	return group.Config{
		BrokerID:               b.BrokerID,
		NumPartitions:          b.OffsetsTopicNumPartitions,
		MinSessionTimeout:      ms(int64(b.GroupMinSessionTimeoutMs)),
		MaxSessionTimeout:      ms(int64(b.GroupMaxSessionTimeoutMs)),
		InitialRebalanceDelay:  ms(int64(b.GroupInitialRebalanceDelayMs)),
		MaxSize:                int(b.GroupMaxSize),
		MetadataMaxBytes:       int(b.OffsetMetadataMaxBytes),
		LoadBufferSize:         b.OffsetsLoadBufferSize,
		Retention:              time.Duration(b.OffsetsRetentionMinutes) * time.Minute,
		RetentionCheckInterval: ms(b.OffsetsRetentionCheckIntervalMs),
		CommitTimeout:          ms(int64(b.OffsetsCommitTimeoutMs)),
		RequiredAcks:           b.OffsetsCommitRequiredAcks,
		Codec:                  record.Codec(b.OffsetsTopicCompressionCodec),
		Logger:                 logger,
	}
}

// txnConfig takes the transaction coordinator's settings from a broker
// config.
func txnConfig(b *config.Broker, logger *slog.Logger) txn.Config {
	return txn.Config{
		BrokerID:       b.BrokerID,
		NumPartitions:  b.TransactionStateLogNumPartitions,
		MaxTimeout:     ms(int64(b.TransactionMaxTimeoutMs)),
		IDExpiration:   ms(int64(b.TransactionalIDExpirationMs)),
		AbortInterval:  ms(int64(b.TransactionAbortTimedOutTransactionCleanupIntervalMs)),
		ExpireInterval: ms(int64(b.TransactionRemoveExpiredTransactionCleanupIntervalMs)),
		LoadBufferSize: b.TransactionStateLogLoadBufferSize,
		WriteTimeout:   ms(int64(b.RequestTimeoutMs)),
		Logger:         logger,
	}
}
