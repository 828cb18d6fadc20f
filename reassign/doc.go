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
// What kafgo does not do, and refuses rather than ignores: replication
// throttles (--throttle and --replica-alter-log-dirs-throttle other than -1)
// and moves between log directories (log_dirs other than "any"). Since no
// throttle can be set, --verify and --cancel have none to clear; they still
// print Kafka's "Clearing ... throttles" lines, which scripts wait for.
package reassign
