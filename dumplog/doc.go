// Package dumplog implements `kafgo dump-log-segments`, Kafka's
// kafka-dump-log.sh (kafka.tools.DumpLogSegments): it prints the contents of
// a partition directory's files offline, reading them with broker/record and
// broker/storage and never writing to them.
//
// # Output
//
// The output is Kafka 3.0's, line for line (the form with "Starting
// offset:", no deleteHorizonMs, lower-case codec names), because operators
// compare it with Kafka's and scripts parse it. For each --files entry:
//
//	Dumping <path as given>
//
// then by suffix:
//
// .log
//
//	Starting offset: <base offset from the file name>
//	baseOffset: B lastOffset: L count: N baseSequence: S lastSequence: S
//	  producerId: P producerEpoch: E partitionLeaderEpoch: PLE
//	  isTransactional: T isControl: C position: <byte> CreateTime|LogAppendTime: <maxTimestamp>
//	  size: <bytes> magic: 2 compresscodec: none|gzip|snappy|lz4|zstd crc: <u32> isvalid: <crc ok>
//	| offset: O CreateTime: T keySize: K valueSize: V sequence: S headerKeys: [a,b]
//
// (one line each; "| offset" lines with --deep-iteration, then " key: k
// payload: v" with --print-data-log, " endTxnMarker: COMMIT
// coordinatorEpoch: 0" for control records). A legacy (magic 0/1) message
// prints "offset: <offset> position: P <type>: T size: S magic: M
// compresscodec: C crc: X isvalid: B" and its records "| offset: O <type>:
// T keySize: K valueSize: V isValid: B crc: X}" (the closing brace is a
// typo in Kafka's format string, kept so the lines match). Magic 0 has
// timestamp type NoTimestampType and timestamp -1.
//
// .index: "offset: O position: P" per entry, or "<file> is empty.";
// .timeindex: "timestamp: T offset: O". The indexes of an active segment
// are preallocated and end in zero entries: those are not entries (the
// dump also stops, as Kafka's, at an entry after the first whose offset is
// the base), so a live segment dumps and checks like a closed one.
// --index-sanity-check prints "<file> passed sanity check." (the check the
// broker runs on startup), and --verify-index-only checks without printing
// entries. .snapshot: one
// line per producer; .txnindex: one line per aborted transaction. Other
// suffixes: "Ignoring unknown file <file>" on stderr.
//
// After all files, stderr gets Kafka's summaries: "Mismatches in :<abs
// path>" / "  Index offset: X, log offset: Y", "Found timestamp mismatch in
// :<abs path>", "Found out of order timestamp in :<abs path>", "The
// following indexed offsets are not found in the log.", and
// "Non-consecutive offsets in <abs path>" / "  A is followed by B". As in
// Kafka, index mismatches and non-consecutive pairs are listed newest first.
//
// # --offsets-decoder
//
// Keys and values of __consumer_offsets (package broker/group/offsetsrec)
// print as Kafka 2.x/3.0's GroupMetadataManager.formatRecordKeyAndValue
// does, the form DumpLogSegments uses up to 3.x:
//
//	key: offset_commit::group=g,partition=t-0 payload: offset=42
//	key: offset_commit::group=g,partition=t-0 payload: offset=42,metadata=m
//	key: group_metadata::group=g payload: {"protocolType":"consumer","protocol":"range","generationId":3,"assignment":"{m1=[t-0, t-1]}"}
//	key: offset_commit::group=g,partition=t-0 payload: <DELETE>
//
// ",metadata=" is printed only for non-empty metadata. A "consumer" group's
// assignments are decoded as the consumer protocol, with ":<hex user data>"
// when there is user data; other protocols print the assignment bytes as
// hex (Java's BigInteger form: upper case, no leading zeros). Members are
// listed in record order (Kafka prints its HashMap's order).
//
// # Corrupt files and exit status
//
// A .log is read batch by batch with bounded reads; every length is checked
// against the bytes left. Where a batch or message cannot be framed, the
// dump stops, prints Kafka's "Found N invalid bytes at the end of <name>"
// on stdout and, on stderr, the byte position and the record package's
// reason. A batch whose CRC does not match prints isvalid: false and is
// still decoded (Kafka's deep iteration does not check CRCs); records that
// do not decode are reported and the dump goes on with the next batch.
//
// Exit status: 0 when nothing was wrong, 2 when a file is corrupt or an
// index disagrees with its log (including Kafka's mismatch reports), 1 when
// a file could not be read at all or the flags are wrong. A missing file
// (or the .log an index needs) is reported as "Cannot dump <file>: <path>
// does not exist". Non-consecutive offsets are reported but are not an
// error: compaction leaves gaps.
package dumplog
