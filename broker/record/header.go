package record

import (
	"encoding/binary"
	"hash/crc32"
)

// Byte offsets of the RecordBatch v2 header fields (see doc.go).
const (
	offBaseOffset           = 0
	offBatchLength          = 8
	offPartitionLeaderEpoch = 12
	offMagic                = 16
	offCRC                  = 17
	offAttributes           = 21
	offLastOffsetDelta      = 23
	offFirstTimestamp       = 27
	offMaxTimestamp         = 35
	offProducerID           = 43
	offProducerEpoch        = 51
	offBaseSequence         = 53
	offRecordCount          = 57

	// LogOverhead is the baseOffset + batchLength prefix every batch (and
	// every legacy message) starts with.
	LogOverhead = 12
	// BatchHeaderSize is the size of a v2 batch header; records follow it.
	BatchHeaderSize = 61
	// MagicV2 is the only batch format the broker writes.
	MagicV2 = 2
)

// Attribute bits of a v2 batch.
const (
	AttrCompressionMask  = 0x07
	AttrTimestampType    = 0x08
	AttrTransactional    = 0x10
	AttrControl          = 0x20
	AttrDeleteHorizonSet = 0x40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BatchHeader is the fixed part of a RecordBatch v2.
type BatchHeader struct {
	BaseOffset           int64
	BatchLength          int32 // bytes after the length field
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32
	Attributes           int16
	LastOffsetDelta      int32
	FirstTimestamp       int64
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	RecordCount          int32
}

// Size is the whole batch size on disk and on the wire.
func (h *BatchHeader) Size() int { return LogOverhead + int(h.BatchLength) }

// LastOffset is the offset of the batch's last record.
func (h *BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// NextOffset is the offset after the batch.
func (h *BatchHeader) NextOffset() int64 { return h.LastOffset() + 1 }

// Codec is the batch's compression codec.
func (h *BatchHeader) Codec() Codec { return Codec(h.Attributes & AttrCompressionMask) }

// IsTransactional reports the transactional attribute bit.
func (h *BatchHeader) IsTransactional() bool { return h.Attributes&AttrTransactional != 0 }

// IsControl reports the control-batch attribute bit.
func (h *BatchHeader) IsControl() bool { return h.Attributes&AttrControl != 0 }

// LogAppendTime reports whether timestamps are broker-assigned.
func (h *BatchHeader) LogAppendTime() bool { return h.Attributes&AttrTimestampType != 0 }

// DeleteHorizon returns the compaction delete horizon (KIP-534), which
// Kafka 3.1+ stores in firstTimestamp when attribute bit 6 is set.
func (h *BatchHeader) DeleteHorizon() (int64, bool) {
	if h.Attributes&AttrDeleteHorizonSet == 0 {
		return 0, false
	}
	return h.FirstTimestamp, true
}

// OffsetOf is the absolute offset of a record of this batch.
func (h *BatchHeader) OffsetOf(r *Record) int64 { return h.BaseOffset + int64(r.OffsetDelta) }

// TimestampOf is a record's timestamp as consumers see it: the batch's
// maxTimestamp under LogAppendTime, otherwise firstTimestamp plus the
// record's delta (also when firstTimestamp holds a delete horizon, since
// the cleaner rebases the deltas on it).
func (h *BatchHeader) TimestampOf(r *Record) int64 {
	if h.LogAppendTime() {
		return h.MaxTimestamp
	}
	return h.FirstTimestamp + r.TimestampDelta
}

// SequenceOf is a record's producer sequence number, -1 when the batch has
// none.
func (h *BatchHeader) SequenceOf(r *Record) int32 {
	if h.BaseSequence < 0 {
		return -1
	}
	return IncrementSequence(h.BaseSequence, r.OffsetDelta)
}

// LastSequence is the sequence number of the last record, wrapping as Kafka
// does after MaxInt32; -1 when the batch carries no sequence.
func (h *BatchHeader) LastSequence() int32 {
	if h.BaseSequence < 0 {
		return -1
	}
	return IncrementSequence(h.BaseSequence, h.LastOffsetDelta)
}

// IncrementSequence adds n to a producer sequence number, wrapping to 0 after
// MaxInt32 as Kafka's DefaultRecordBatch.incrementSequence does.
func IncrementSequence(seq, n int32) int32 {
	if seq > 0x7fffffff-n {
		return n - (0x7fffffff - seq) - 1
	}
	return seq + n
}

// ParseBatchHeader reads the v2 header at the start of b. b must hold at
// least BatchHeaderSize bytes; it need not hold the whole batch, so storage
// can read headers without the records. The magic byte is checked first,
// because bytes 12..16 mean something else in a legacy message; the CRC is
// not checked (see VerifyCRC). Errors are *Error with Kind KindCorrupt; a
// legacy magic wraps ErrOtherMagic and a short b wraps ErrTruncated.
func ParseBatchHeader(b []byte) (BatchHeader, error) {
	var h BatchHeader
	if len(b) <= offMagic {
		return h, truncatedf(len(b), "batch header", "need %d bytes, have %d", BatchHeaderSize, len(b))
	}
	h.BaseOffset = int64(binary.BigEndian.Uint64(b[offBaseOffset:]))
	h.BatchLength = int32(binary.BigEndian.Uint32(b[offBatchLength:]))
	h.Magic = int8(b[offMagic])
	if err := checkMagic(h.Magic, MagicV2, offMagic); err != nil {
		return h, err
	}
	if h.BatchLength < BatchHeaderSize-LogOverhead {
		return h, corruptf(offBatchLength, "batchLength", "%d is below the v2 minimum %d", h.BatchLength, BatchHeaderSize-LogOverhead)
	}
	if len(b) < BatchHeaderSize {
		return h, truncatedf(len(b), "batch header", "need %d bytes, have %d", BatchHeaderSize, len(b))
	}
	h.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(b[offPartitionLeaderEpoch:]))
	h.CRC = binary.BigEndian.Uint32(b[offCRC:])
	h.Attributes = int16(binary.BigEndian.Uint16(b[offAttributes:]))
	h.LastOffsetDelta = int32(binary.BigEndian.Uint32(b[offLastOffsetDelta:]))
	h.FirstTimestamp = int64(binary.BigEndian.Uint64(b[offFirstTimestamp:]))
	h.MaxTimestamp = int64(binary.BigEndian.Uint64(b[offMaxTimestamp:]))
	h.ProducerID = int64(binary.BigEndian.Uint64(b[offProducerID:]))
	h.ProducerEpoch = int16(binary.BigEndian.Uint16(b[offProducerEpoch:]))
	h.BaseSequence = int32(binary.BigEndian.Uint32(b[offBaseSequence:]))
	h.RecordCount = int32(binary.BigEndian.Uint32(b[offRecordCount:]))
	if h.LastOffsetDelta < 0 {
		return h, corruptf(offLastOffsetDelta, "lastOffsetDelta", "%d is negative", h.LastOffsetDelta)
	}
	return h, nil
}

// checkMagic reports a magic byte other than want; 0..2 are the formats
// Kafka has defined, and a known other one is flagged ErrOtherMagic so a
// reader of a mixed file can switch decoders there.
func checkMagic(got, want int8, off int) error {
	if got == want {
		return nil
	}
	e := corruptf(off, "magic", "%d, want %d", got, want)
	if got >= 0 && got <= MagicV2 {
		e.Err = ErrOtherMagic
	}
	return e
}

// PeekMagic returns the magic byte of the batch or legacy message at the
// start of b, which sits at byte 16 in every format.
func PeekMagic(b []byte) (int8, error) {
	if len(b) <= offMagic {
		return 0, truncatedf(len(b), "magic", "need %d bytes, have %d", offMagic+1, len(b))
	}
	return int8(b[offMagic]), nil
}

// ComputeCRC returns the CRC-32C of a whole batch's bytes from attributes to
// the end, the range the stored CRC covers.
// A slice too short to hold the attributes yields 0, which VerifyCRC never
// accepts because it first checks the header length.
func ComputeCRC(batch []byte) uint32 {
	if len(batch) < offAttributes {
		return 0
	}
	return crc32.Checksum(batch[offAttributes:], castagnoli)
}

// VerifyCRC checks the stored CRC of a whole batch.
// batch must be exactly the batch: bytes past its end would enter the sum.
func VerifyCRC(batch []byte) error {
	if len(batch) < BatchHeaderSize {
		return truncatedf(len(batch), "crc", "batch of %d bytes is shorter than its %d-byte header", len(batch), BatchHeaderSize)
	}
	stored := binary.BigEndian.Uint32(batch[offCRC:])
	if got := ComputeCRC(batch); got != stored {
		return corruptf(offCRC, "crc", "stored %d, computed %d", stored, got)
	}
	return nil
}

// The Set functions below rewrite a whole, already validated batch in place;
// like slice indexing they panic when batch is shorter than its header.

// SetBaseOffset rewrites the batch's base offset in place. The CRC does not
// cover it, so the batch stays valid.
func SetBaseOffset(batch []byte, base int64) {
	binary.BigEndian.PutUint64(batch[offBaseOffset:], uint64(base))
}

// SetPartitionLeaderEpoch rewrites the leader epoch in place (not CRC-covered).
func SetPartitionLeaderEpoch(batch []byte, epoch int32) {
	binary.BigEndian.PutUint32(batch[offPartitionLeaderEpoch:], uint32(epoch))
}

// SetMaxTimestamp rewrites the timestamp type bit and maxTimestamp and
// recomputes the CRC, as the broker does for a topic with
// message.timestamp.type=LogAppendTime (Kafka's setMaxTimestamp).
func SetMaxTimestamp(batch []byte, logAppendTime bool, ts int64) {
	attrs := binary.BigEndian.Uint16(batch[offAttributes:])
	if logAppendTime {
		attrs |= AttrTimestampType
	} else {
		attrs &^= AttrTimestampType
	}
	binary.BigEndian.PutUint16(batch[offAttributes:], attrs)
	binary.BigEndian.PutUint64(batch[offMaxTimestamp:], uint64(ts))
	binary.BigEndian.PutUint32(batch[offCRC:], ComputeCRC(batch))
}

// put writes every header field of h, CRC included as stored in h, into
// the first BatchHeaderSize bytes of b.
func (h *BatchHeader) put(b []byte) {
	_ = b[BatchHeaderSize-1]
	binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(h.BaseOffset))
	binary.BigEndian.PutUint32(b[offBatchLength:], uint32(h.BatchLength))
	binary.BigEndian.PutUint32(b[offPartitionLeaderEpoch:], uint32(h.PartitionLeaderEpoch))
	b[offMagic] = byte(h.Magic)
	binary.BigEndian.PutUint32(b[offCRC:], h.CRC)
	binary.BigEndian.PutUint16(b[offAttributes:], uint16(h.Attributes))
	binary.BigEndian.PutUint32(b[offLastOffsetDelta:], uint32(h.LastOffsetDelta))
	binary.BigEndian.PutUint64(b[offFirstTimestamp:], uint64(h.FirstTimestamp))
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(h.MaxTimestamp))
	binary.BigEndian.PutUint64(b[offProducerID:], uint64(h.ProducerID))
	binary.BigEndian.PutUint16(b[offProducerEpoch:], uint16(h.ProducerEpoch))
	binary.BigEndian.PutUint32(b[offBaseSequence:], uint32(h.BaseSequence))
	binary.BigEndian.PutUint32(b[offRecordCount:], uint32(h.RecordCount))
}
