// Package deleterecords is `kafgo delete-records`, Kafka's
// kafka-delete-records.sh (DeleteRecordsCommand, Kafka 3.9): it moves the
// log start offset of each partition of --offset-json-file up to the
// offset given (DeleteRecords to each leader), deleting the records
// before it; offset -1 means the high watermark.
//
// The file (version 1, the only one; a missing "version" means 1):
//
//	{"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version": 1}
//
// Output, as Kafka prints it:
//
//	Executing records delete operation
//	Records delete operation completed:
//	partition: foo-1	low_watermark: 1
//	partition: foo-2	error: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.
//
// Kafka prints the partitions in the order of a Java HashMap, which it does
// not define; kafgo sorts them by topic, then partition. Where Kafka's admin
// client keeps retrying a partition whose topic does not exist until its
// 60 s API timeout, kafgo reports UnknownTopicOrPartitionException for it at
// once.
package deleterecords
