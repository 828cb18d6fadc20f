package record

import (
	"encoding/binary"
	"fmt"
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

// HeaderError describes a batch whose header cannot be read.
type HeaderError struct {
	Field  string
	Detail string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("record: batch header: %s: %s", e.Field, e.Detail)
}

// ParseBatchHeader reads the v2 header at the start of b. b must hold at
// least BatchHeaderSize bytes; it need not hold the whole batch, so storage
// can read headers without the records. The magic byte is checked, the CRC
// is not (see VerifyCRC).
func ParseBatchHeader(b []byte) (BatchHeader, error) {
	var h BatchHeader
	if len(b) < LogOverhead {
		return h, &HeaderError{"batchLength", fmt.Sprintf("need %d bytes, have %d", LogOverhead, len(b))}
	}
	h.BaseOffset = int64(binary.BigEndian.Uint64(b[offBaseOffset:]))
	h.BatchLength = int32(binary.BigEndian.Uint32(b[offBatchLength:]))
	if h.BatchLength < BatchHeaderSize-LogOverhead {
		return h, &HeaderError{"batchLength", fmt.Sprintf("%d is below the v2 minimum %d", h.BatchLength, BatchHeaderSize-LogOverhead)}
	}
	if len(b) < BatchHeaderSize {
		return h, &HeaderError{"header", fmt.Sprintf("need %d bytes, have %d", BatchHeaderSize, len(b))}
	}
	h.Magic = int8(b[offMagic])
	if h.Magic != MagicV2 {
		return h, &HeaderError{"magic", fmt.Sprintf("%d, want %d", h.Magic, MagicV2)}
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
		return h, &HeaderError{"lastOffsetDelta", fmt.Sprintf("%d is negative", h.LastOffsetDelta)}
	}
	return h, nil
}

// ComputeCRC returns the CRC-32C of a whole batch's bytes from attributes to
// the end, the range the stored CRC covers.
func ComputeCRC(batch []byte) uint32 {
	return crc32.Checksum(batch[offAttributes:], castagnoli)
}

// VerifyCRC checks the stored CRC of a whole batch.
func VerifyCRC(batch []byte) error {
	if len(batch) < BatchHeaderSize {
		return &HeaderError{"crc", fmt.Sprintf("batch of %d bytes is shorter than its header", len(batch))}
	}
	stored := binary.BigEndian.Uint32(batch[offCRC:])
	if got := ComputeCRC(batch); got != stored {
		return &HeaderError{"crc", fmt.Sprintf("stored %d, computed %d", stored, got)}
	}
	return nil
}

// SetBaseOffset rewrites the batch's base offset in place. The CRC does not
// cover it, so the batch stays valid.
func SetBaseOffset(batch []byte, base int64) {
	binary.BigEndian.PutUint64(batch[offBaseOffset:], uint64(base))
}

// SetPartitionLeaderEpoch rewrites the leader epoch in place (not CRC-covered).
func SetPartitionLeaderEpoch(batch []byte, epoch int32) {
	binary.BigEndian.PutUint32(batch[offPartitionLeaderEpoch:], uint32(epoch))
}
