// Package replicaverify is `kafgo replica-verification`, Kafka's
// kafka-replica-verification.sh (ReplicaVerificationTool, Kafka 3.9): it
// fetches every replica of the chosen topics' partitions from each broker
// (Fetch as the debugging consumer, replica id -2, which may read
// followers up to their high watermark), and compares them batch by batch:
// the same last offset and the same checksum (the batch CRC), up to each
// replica's high watermark. Rounds repeat, each fetcher fetching once and
// one verifying, until the process is stopped.
//
// Output (stdout; times "yyyy-MM-dd HH:mm:ss,SSS" in the local zone):
//
//	<time>: verification process is started
//	<time>: max lag is L for partition t-0 at offset O among N partitions    (after a round, once per --report-interval-ms)
//	<time>: partition t-0: replica 1's offset 5 doesn't match replica 2's offset 6    (then exit status 1)
//	<time>: partition t-0 has unmatched checksum at offset O; replica 1's checksum C1; replica 2's checksum C2
//
// The lag is, over all partitions, the largest distance between the
// highest high watermark of a partition's replicas and the offset up to
// which all its replicas were found equal.
package replicaverify
