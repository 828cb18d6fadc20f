// Package compare is the side-by-side benchmark of issue 11: a kafgo broker
// (embedded metadata store, data in a temp dir) and franz-go's in-memory
// kfake, started in the same run, driven by the same kgo client code, with
// the repetitions interleaved so both see the same machine load.
//
// What it measures, for 100 B and 1 KiB records, 1 and 6 partitions, and
// acks=1 (idempotence off, 5 requests in flight) and acks=all (idempotent);
// the client batches up to 16 KiB, lingers 5 ms and does not compress:
//
//   - produce: records/s from the first Produce to the last acknowledgement;
//   - consume: records/s for a fresh client (no group) to read back what was
//     produced, fetch.max.wait 500 ms as the Java consumer;
//   - the broker's CPU per record: utime+stime of the broker process
//     (/proc/<pid>/stat) before and after the run, divided by the records.
//
// Each row reports the medians over the repetitions, and the ratio column is
// the median of the per-repetition kafgo/kfake ratios (not the ratio of the
// medians), so one slow repetition of one side does not skew it.
//
// It also measures end-to-end latency (producer send to consumer receipt,
// from a nanosecond clock carried in the record value) at fixed rates, and,
// on a 3-broker kafgo cluster with ZooKeeper, acks=all to an RF=3 topic
// (min.insync.replicas=2) against acks=1 to an RF=1 topic.
//
// It runs as a test so it can use internal/testing/testcluster:
//
//	make bench-compare                      # the full run, a Markdown report
//	go test -short ./internal/perfbench/compare/   # smoke: tiny counts, checks it runs
//
// Speed is reported, never asserted: the smoke run only checks every part
// completes and counts what it should.
package compare
