// Package reassign is `kafgo reassign-partitions`, Kafka's
// kafka-reassign-partitions.sh: it proposes (--generate), starts
// (--execute), checks (--verify), cancels (--cancel) and lists (--list)
// partition reassignments over the Kafka protocol (Metadata,
// AlterPartitionAssignments, ListPartitionReassignments), with Kafka's flags,
// files and output.
//
// Files (version 1 only; a missing "version" means 1, as in Kafka):
//
//	topics to move:  {"topics":[{"topic":"foo"},{"topic":"foo1"}],"version":1}
//	reassignment:    {"partitions":[{"topic":"foo","partition":1,"replicas":[1,2,3],
//	                   "log_dirs":["any","any","any"]}],"version":1}
//
// log_dirs is optional and, when present, has one entry per replica. The
// tool writes reassignment JSON compact, keys in the order version,
// partitions and topic, partition, replicas, log_dirs, partitions sorted by
// topic then partition, log_dirs "any" for every replica.
//
// Throttling (KIP-73), as Kafka's tool does it: --execute --throttle N
// (N >= 0 bytes/s; negative, the default -1, sets none) first sets, on each
// topic with a move in flight or in the file, leader.replication.throttled.replicas
// to the partitionId:brokerId pairs of the replicas each move reads from (the
// replicas before it) and follower.replication.throttled.replicas to the
// pairs of the replicas it adds, then leader.replication.throttled.rate and
// follower.replication.throttled.rate to N on every broker those moves
// involve, and only then starts the moves. Resubmitting with --additional
// and a new --throttle changes the rate of moves already running. The values
// are SET, not merged with what the topics held: they are recomputed from
// every move in flight, so earlier moves stay covered. Once nothing moves,
// --verify (and --cancel) delete the rates, and the log directory throttle,
// on every live broker and every broker the file names, and the two lists
// on every topic of the file, unless --preserve-throttles.
//
// What kafgo does not do, and refuses rather than ignores: moves between
// log directories (log_dirs other than "any") and their throttle
// (--replica-alter-log-dirs-throttle other than -1).
package reassign
