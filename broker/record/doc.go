// Package record encodes and decodes Kafka's record formats: RecordBatch v2
// (magic 2, what the broker stores and serves), its control records, the
// four compression codecs, and, for reading old segments only, the legacy
// message sets of magic 0 and 1. Integers are big-endian unless marked
// varint/varlong, which are zigzag varints of at most 5 and 10 bytes.
//
// # RecordBatch v2
//
//	off size field
//	  0    8 baseOffset            not in the CRC: the broker assigns it
//	  8    4 batchLength           bytes after this field; batch = 12 + batchLength
//	 12    4 partitionLeaderEpoch  not in the CRC: the leader stamps it
//	 16    1 magic = 2             byte 16 is the magic in every format
//	 17    4 crc                   CRC-32C (Castagnoli) of bytes [21, end)
//	 21    2 attributes            bits 0-2 codec (0 none, 1 gzip, 2 snappy,
//	                               3 lz4, 4 zstd), 3 LogAppendTime,
//	                               4 transactional, 5 control,
//	                               6 delete horizon in firstTimestamp
//	 23    4 lastOffsetDelta       count-1 when built; kept through compaction
//	 27    8 firstTimestamp
//	 35    8 maxTimestamp
//	 43    8 producerId            -1: none
//	 51    2 producerEpoch         -1: none
//	 53    4 baseSequence          -1: none; wraps to 0 after MaxInt32
//	 57    4 recordCount           never compressed
//	 61    - records               one compressed blob when a codec is set
//
// A record inside the records section:
//
//	length varint (bytes after it), attributes int8, timestampDelta varlong,
//	offsetDelta varint, keyLength varint (-1 null), key,
//	valueLength varint (-1 null), value, headerCount varint,
//	then per header: keyLength varint (not nullable), key,
//	valueLength varint (-1 null), value.
//
// A record's timestamp is firstTimestamp + timestampDelta, or maxTimestamp
// under LogAppendTime; its offset is baseOffset + offsetDelta.
//
// Control batches (bit 5, always transactional) hold control records whose
// key is version int16, type int16 (0 ABORT, 1 COMMIT) and whose value for
// those types is the end-transaction marker: version int16,
// coordinatorEpoch int32.
//
// # Compression
//
// gzip is a gzip stream; lz4 is the LZ4 frame format; zstd is a zstd frame.
// snappy is written in snappy-java's xerial framing, the Java client's
// form: 0x82 "SNAPPY" 0x00, int32 version 1, int32 minimum compatible
// version 1, then [int32 length][raw snappy block] chunks of up to 32 KiB
// input. A bare raw snappy block, as franz-go sends, is read as well.
//
// # Legacy message sets
//
//	off size field
//	  0    8 offset
//	  8    4 messageSize  bytes after this field
//	 12    4 crc          CRC-32 (IEEE) of bytes [16, end)
//	 16    1 magic        0 or 1
//	 17    1 attributes   bits 0-2 codec (no zstd), bit 3 LogAppendTime (magic 1)
//	 18    8 timestamp    magic 1 only
//	     4+n key          int32 length, -1 null
//	     4+n value        int32 length, -1 null
//
// A compressed message is a wrapper whose value is a compressed message set.
// In magic 1 the inner offsets are relative and the wrapper holds the
// absolute offset of the last inner message. Magic 0 lz4 carries the frame
// header checksum Kafka computed wrongly before KIP-57.
//
// # Invariants
//
// Decoders never panic and check every length read from the input against
// the bytes that remain before allocating; counts are bounded by the
// smallest encoding of what they count. Decompression stops at a caller's
// limit (ErrTooLarge). A nil key, value or header value is null and a
// non-nil empty slice is empty, both ways. Decoded keys and values alias the
// input (or the buffer a compressed section was decompressed into).
//
// Errors are *Error values carrying a Kind (KindCorrupt maps to Kafka's
// CORRUPT_MESSAGE, KindInvalid to INVALID_RECORD), the field and its byte
// offset. Shared codec state (pooled gzip, lz4 and zstd decoders and
// encoders) is safe for concurrent use; the Builder and iterators are not.
package record
