// Package txnrec encodes and decodes the records of Kafka's internal
// __transaction_state topic byte for byte as Kafka's TransactionLog writes
// them (TransactionLogKey.json, TransactionLogValue.json), so a kafgo log
// reads like a Kafka one and Kafka's tools decode it. The bytes are
// franz-go's kmsg types (TxnMetadataKey, TxnMetadataValue), generated from
// those schemas; this package holds the versions, the state rules and a
// strict reading. Like offsetsrec it depends on nothing of the broker, so
// offline tools can use it.
//
// Key and value both start with an int16 schema version; the fields use
// Kafka's classic (non-flexible) encoding, big-endian: STRING is an int16
// length and UTF-8, ARRAY an int32 count (-1 = null).
//
// # Key (version 0, the only one)
//
//	version           INT16 = 0
//	transactional_id  STRING
//
// # Value (version 0; null = the transactional id expired)
//
//	version                              INT16 = 0
//	producer_id                          INT64
//	producer_epoch                       INT16
//	transaction_timeout_ms               INT32
//	transaction_status                   INT8    state byte, below
//	transaction_partitions               ARRAY   null when the state is Empty
//	    topic                            STRING
//	    partition_ids                    ARRAY of INT32
//	transaction_last_update_timestamp_ms INT64
//	transaction_start_timestamp_ms       INT64   -1 when no transaction started
//
// Version 1 (Kafka 3.5+, KIP-915) has the same fields in the flexible
// encoding; it is read (so logs of newer brokers decode) but never written:
// a 2.8 broker rejects it. The last producer id and epoch are not stored
// (a loaded transaction has none).
//
// # States
//
//	0 Empty  1 Ongoing  2 PrepareCommit  3 PrepareAbort  4 CompleteCommit
//	5 CompleteAbort  6 Dead  7 PrepareEpochFence
//
// Dead and PrepareEpochFence never reach the log. An unknown state byte is
// an error, as in Kafka. Partitions are written grouped by topic, topics
// and partitions in ascending order (Kafka's order is a hash set's).
//
// Decoders check every length against the bytes that remain before they
// allocate, never panic, and reject trailing bytes.
package txnrec
