// Package storage is the partition log of a kafgo broker, byte-compatible
// with Apache Kafka's own log directories: a Kafka broker can read what this
// package writes and the other way round.
//
// # Directory layout
//
// A log dir (log.dirs) holds meta.properties, the per-dir checkpoint files,
// the clean-shutdown marker, ".lock" and one directory per partition, named
// "<topic>-<partition>". A partition directory holds segments named by
// their base offset in 20 zero-padded digits, plus leader-epoch-checkpoint,
// partition.metadata and producer snapshots:
//
//	00000000000000000000.log        batches exactly as written
//	00000000000000000000.index      offset index
//	00000000000000000000.timeindex  time index
//	00000000000000000000.txnindex   aborted transactions (only once one aborts)
//	00000000000000001234.snapshot   producer state as of offset 1234
//
// Transient names: "<name>.deleted" (retired by retention, truncation or
// the cleaner, removed after file.delete.delay.ms), "<name>.tmp" (a
// checkpoint being written), "<name>.cleaned" (a segment the cleaner is
// writing), "<name>.swap" (a cleaned segment committed but not yet in
// place), "<topic>-<p>.<32 hex>-delete" (a deleted partition being
// removed). All of them are cleaned up on open; a "<base>.log.swap"
// completes its swap first (see completeSwaps).
//
// ".lock" is held with an exclusive flock by the broker using the dir, taken
// before anything in the dir is read and released after the last log is
// closed (dirlock.go); it holds the holder's pid, for the error a second
// process gets. Kafka ignores its content.
//
// # Segment files
//
// .log: concatenated RecordBatch v2 batches, no framing of our own. Batch
// header (big-endian): baseOffset int64, batchLength int32 (bytes after this
// field), partitionLeaderEpoch int32, magic int8 = 2, crc uint32 (CRC-32C of
// everything from attributes on), attributes int16 (bits 0-2 codec, 3
// LogAppendTime, 4 transactional, 5 control), lastOffsetDelta int32,
// firstTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch
// int16, baseSequence int32, recordCount int32; then the records. The CRC
// does not cover baseOffset and partitionLeaderEpoch, which the leader
// rewrites in place.
//
// .index: 8-byte entries, relativeOffset int32 (offset - base) and position
// int32. When more than index.interval.bytes were appended since the last
// entry, an append adds (its largest offset, the position where it starts);
// the first append of a segment never gets one. Lookup takes the greatest
// entry at or below the target and scans batch headers forward.
//
// .timeindex: 12-byte entries, timestamp int64 and relativeOffset int32,
// taken at the same moments as offset index entries but only when the
// largest timestamp so far grew; its offset is Kafka's shallow offset of
// that timestamp, the last offset of the earliest batch carrying it. Leader
// appends, follower appends, recovery and the cleaner all write it so
// (kafka-dump-log checks that each entry names a batch's last offset);
// lookups by timestamp scan records from there. The last slot is kept for
// the entry forced when the segment rolls or closes: the segment's largest
// timestamp.
//
// The active segment's index files are preallocated to segment.index.bytes
// (rounded down to whole entries) and trimmed to their entries when the
// segment rolls and when the log closes. They are memory-mapped shared, so
// lookups are plain memory reads with no syscall; disk blocks for new entries
// are reserved with fallocate a chunk ahead of use, because a store into a
// sparse hole of a mapping on a full disk would raise SIGBUS instead of
// returning ENOSPC. A segment rolls when the next append would pass
// segment.bytes, when segment.ms passed since its first batch's largest
// timestamp (or its creation, without timestamps), when either index is full,
// and when an offset would not fit 31 bits relative to its base.
//
// .txnindex: 34-byte entries, version int16 = 0, producerId int64,
// firstOffset int64, lastOffset int64 (the ABORT marker), lastStableOffset
// int64, one per transaction aborted by a marker in the segment, in marker
// order (txn_index.go). It is truncated, renamed and deleted with its
// segment, rebuilt with the producer state for the segments an unclean open
// recovers, and rewritten by the cleaner for the markers it keeps.
//
// # Transactions
//
// A transactional batch opens its producer's transaction; a control batch
// (COMMIT or ABORT marker, written by the leader for WriteTxnMarkers) ends
// it. The last stable offset is the first offset of the earliest
// transaction still open or whose marker is not yet below the high
// watermark, capped by the high watermark (producer_txn.go); read_committed
// consumers read below it and drop the records of the aborted transactions
// the indexes list. The cleaner never cleans at or beyond it, drops the
// records of aborted transactions, and keeps a marker while its
// transaction has records and for delete.retention.ms after
// (cleaner_txn.go).
//
// # Checkpoints and metadata
//
// Text files written via temp file, fsync, rename and directory fsync:
//
//	recovery-point-offset-checkpoint, replication-offset-checkpoint,
//	log-start-offset-checkpoint, cleaner-offset-checkpoint (per log dir):
//	    0\n<count>\n then "<topic> <partition> <offset>\n" per entry
//	leader-epoch-checkpoint (per partition):
//	    0\n<count>\n then "<epoch> <startOffset>\n" per entry
//	partition.metadata: "version: 0\ntopic_id: <22-char base64url id>"
//	meta.properties (Java properties): "#", a date comment, version=0,
//	    broker.id=N, cluster.id=<22-char base64url id>
//
// Producer snapshot (version 1): version int16, crc uint32 (CRC-32C of the
// rest), count int32, then per producer 46 bytes: producerId int64, epoch
// int16, lastSequence int32, lastOffset int64, offsetDelta int32, timestamp
// int64, coordinatorEpoch int32, currentTxnFirstOffset int64.
//
// # Invariants
//
//   - One writer, many readers. Writers serialise on the log's mutex; a
//     reader takes no lock and reads below the published log end offset and
//     segment size, which are stored only after an append's bytes and index
//     entries are complete. A reader never sees a torn batch.
//   - A write that fails is cut back and nothing is published. Any I/O
//     error (write, fsync, truncate, rename, index, checkpoint, read) is
//     fail-stop: the log dir goes offline, every log in it refuses further
//     work with ErrStorage, a failed fsync is never retried, and the failure
//     is reported once on Manager.DirFailures (log_failure.go).
//   - All file access goes through a vfs.FS (package vfs), so tests inject
//     errors and power loss under the log.
//   - Descriptors and mappings are bounded per process, not per segment
//     (file_cache.go): index files keep no descriptor and are mapped on
//     first use within a budget; .log and .txnindex files are opened on
//     demand through a cache of open files (log.open.files.max). A
//     FileRegion pins its descriptor until Release, so a send in flight
//     never sees it closed.
//   - The recovery point only covers fsynced data. It advances on Flush,
//     flush.messages, flush.ms, and in the background after each roll.
//   - On an unclean open every segment from the one holding the recovery
//     point on is re-read; the log ends at the last batch whose length, CRC
//     and offsets are valid, and its indexes are rebuilt.
//   - Leader epochs have strictly increasing epochs and non-decreasing start
//     offsets, and never start at or beyond the log end offset.
//   - Producer state equals a replay of the log: after any open or
//     truncation it is the newest snapshot at or below the point of trust
//     plus every batch after it; open transactions come back from the
//     snapshot's current_txn_first_offset.
//   - Compaction (cleaner.go) never renumbers an offset and never touches
//     the active segment or offsets at or above the high watermark; a
//     cleaned segment replaces its sources in one atomic publication, and
//     a crash at any step leaves either the old segments or the new one.
//   - Every decoded length is checked against the bytes remaining before
//     anything is allocated for it; bad files are errors, never panics.
package storage
