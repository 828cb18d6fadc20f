// Package perf implements `kafgo perf produce` and `kafgo perf consume`,
// the counterparts of kafka-producer-perf-test.sh and
// kafka-consumer-perf-test.sh, with their output lines byte for byte.
//
// Producer lines (MB = 1024*1024 bytes):
//
//	%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.
//	%d[ steady state] records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.
//
// The first is printed for each reporting window (5 s) when a record
// completes after the window has run its length; the second once at the
// end. A record's latency is the whole milliseconds from the moment it is
// handed to the client (so time blocked on a full buffer counts, as in
// Kafka) to its acknowledgement callback. Only acknowledged records are
// counted. Latencies are sampled into at most 500000 slots (every
// numRecords/min(numRecords, 500000)-th record), and percentile p is the
// sample at index (int)(p*samples) after sorting. Throughput runs from the
// first send to the last acknowledgement, not from process start.
//
// Consumer output is a header and one line of comma-separated figures
// (start.time, end.time, MB, MB/s, messages, messages/s, rebalance ms,
// fetch ms, fetch MB/s, fetch messages/s), or with --show-detailed-stats
// one line per reporting interval; MB counts key plus value bytes.
package perf
