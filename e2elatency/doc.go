// Package e2elatency is `kafgo e2e-latency`, Kafka's EndToEndLatency tool
// (kafka-run-class.sh org.apache.kafka.tools.EndToEndLatency, Kafka 3.9):
// the time one record takes from a synchronous send to its arrival at a
// consumer reading the topic's end, one record at a time.
//
//	kafgo e2e-latency broker_list topic num_messages producer_acks message_size_bytes [properties_file]
//
// producer_acks is 1 or all. A missing topic is created with one partition
// and replication factor 1 (`Topic "t" does not exist. Will create topic
// with 1 partition(s) and replication factor = 1`). The consumer is
// assigned every partition at its end, with no fetch batching; each record
// is a message_size_bytes run of one random capital letter (Java's
// Random(0), as Kafka's tool draws them) and must come back alone and
// intact. Output, as Kafka prints it: every 1000th record "i<TAB>ms" (the
// milliseconds as a Java double), then
//
//	Avg latency: %.4f ms
//	Percentiles: 50th = A, 99th = B, 99.9th = C
//
// (whole milliseconds, the sorted latencies at index len*q). The consumer
// commits its position under group test-group-<ms> at the end.
//
// kafgo's consumer waits at least 10 ms for an empty fetch (franz-go's
// floor) where Kafka's uses fetch.max.wait.ms=0; with fetch.min.bytes 1 the
// broker answers as soon as the record is there either way.
package e2elatency
