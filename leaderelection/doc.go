// Package leaderelection is `kafgo leader-election`, Kafka's
// kafka-leader-election.sh (LeaderElectionCommand, Kafka 3.9): it asks the
// controller (ElectLeaders, v1+) to elect the preferred replica, or an
// out-of-sync one where no leader is left (unclean), for one partition
// (--topic t --partition p), the partitions of a JSON file
// (--path-to-json-file) or every partition (--all-topic-partitions).
//
// The file:
//
//	{"partitions": [{"topic": "foo", "partition": 1}, {"topic": "foobar", "partition": 2}]}
//
// Output, as Kafka prints it on standard output, each line only when it has
// partitions, the partitions as topic-partition joined by ", ":
//
//	Successfully completed leader election (PREFERRED) for partitions foo-0, foo-1
//	Valid replica already elected for partitions foo-2
//	Error completing leader election (PREFERRED) for partition: foo-3: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: <message>
//
// then, when any partition failed, "N replica(s) could not be elected" on
// standard error and exit status 1. Kafka keeps the partitions of each line
// in a Java HashSet, whose order it does not define; kafgo sorts them by
// topic, then partition. An all-partitions election reports only the
// partitions that needed one (the broker leaves the others out).
package leaderelection
