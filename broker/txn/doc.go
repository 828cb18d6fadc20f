// Package txn is the transaction coordinator (Kafka 2.8's
// TransactionCoordinator, TransactionStateManager and
// TransactionMarkerChannelManager; KIP-98, KIP-360, KIP-664). It keeps
// every transactional id's state in the compacted internal topic
// __transaction_state in Kafka's record format (package txnrec).
//
// # Placement and loading
//
// A transactional id lives on partition abs(javaHashCode(id)) % partitions
// (package coordlog); the leader of that partition is its coordinator, and
// the partition's leader epoch is the coordinator epoch written into every
// marker. When this broker becomes leader the partition is replayed (last
// record per id wins, a tombstone deletes); meanwhile requests get
// COORDINATOR_LOAD_IN_PROGRESS, and requests for partitions it does not
// lead NOT_COORDINATOR. Transactions found in PrepareCommit/PrepareAbort
// are completed: their markers are sent again.
//
// # States (valid previous states in brackets)
//
//	Empty             [Empty, CompleteCommit, CompleteAbort]  no transaction
//	Ongoing           [Ongoing, Empty, CompleteCommit, CompleteAbort]
//	PrepareCommit     [Ongoing]                 EndTxn(commit) logged
//	PrepareAbort      [Ongoing, PrepareEpochFence]
//	CompleteCommit    [PrepareCommit]           every marker written
//	CompleteAbort     [PrepareAbort]
//	Dead              [Empty, CompleteCommit, CompleteAbort]  expiring (tombstone)
//	PrepareEpochFence [Ongoing]                 in memory only, while fencing
//
// Every transition is two-phase: it is prepared (the target becomes the
// pending state, and requests get CONCURRENT_TRANSACTIONS), the new
// metadata is appended with acks=all, and once replicated it is applied.
// A failed write drops the pending state; a write that lands after the
// partition moved changes nothing (the new coordinator loads it).
//
// # Requests
//
// InitProducerId gives a new id a producer id from the cluster-wide block
// allocator and bumps the epoch of a known one, which fences the previous
// producer instance (its requests now get PRODUCER_FENCED). A KIP-360
// producer names its producer id and epoch: the bump happens only if they
// are current, and a retry of a bump that succeeded gets the same answer.
// An exhausted epoch (32766) moves the id to a fresh producer id at epoch
// 0. An Ongoing transaction is first aborted with a bumped epoch (the
// client gets CONCURRENT_TRANSACTIONS and retries, bumping again).
// AddPartitionsToTxn and AddOffsetsToTxn make the transaction Ongoing with
// the union of its partitions. EndTxn logs PrepareCommit/PrepareAbort,
// answers, and the marker phase follows.
//
// # Markers
//
// The marker manager groups the partitions of every transaction in its
// marker phase by leader broker and keeps one WriteTxnMarkers in flight
// per broker, carrying every transaction's markers for it. NOT_LEADER,
// UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, timeouts and broken
// connections are retried (with the leader looked up again); a partition
// no longer in the metadata is skipped; INVALID_PRODUCER_EPOCH or
// TRANSACTION_COORDINATOR_FENCED mean someone newer owns the transaction
// and the phase is abandoned. When every marker is written the
// CompleteCommit/CompleteAbort record is appended (retried until it lands
// or the partition moves).
//
// # Timeouts and expiration
//
// Every transaction.abort.timed.out.transaction.cleanup.interval.ms, a
// transaction Ongoing for longer than its timeout is aborted: the epoch is
// bumped first, so the producer is fenced. Every
// transaction.remove.expired.transaction.cleanup.interval.ms, an id idle
// for transactional.id.expiration.ms in Empty/CompleteCommit/CompleteAbort
// is removed with a tombstone.
//
// # Locking
//
// Each transactional id has its own mutex. It may be held while taking
// the coordinator's (which guards only the partition maps) or the marker
// manager's mutex, never the reverse. Replication waits and marker sends
// hold no lock.
package txn
