// Package coordlog is what Kafka's two coordinators share: each keeps its
// state in a compacted internal topic (__consumer_offsets for groups,
// __transaction_state for transactions) and serves the keys of the
// partitions this broker leads.
//
//   - Placement: a key (group id, transactional id) lives on partition
//     Utils.abs(javaStringHashCode(key)) % partitions, where Utils.abs maps
//     Integer.MIN_VALUE to 0. The partition count is the topic's own once it
//     exists, else the configured one.
//   - Log: the coordinator appends batches to those partitions as their
//     leader (acks=all, waited for off any lock) and reads them back.
//   - Replay: when this broker becomes leader of a partition the coordinator
//     reads it from the log start to the log end offset as of the start of
//     the load, batch by batch, and folds every record in; control batches
//     (transaction markers) are passed through with their producer id so a
//     coordinator can resolve transactional records.
package coordlog
