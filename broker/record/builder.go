package record

import "errors"

// Builder assembles a new batch from records with absolute timestamps, the
// way a producer does: offsets are consecutive from the base offset, and
// lastOffsetDelta, firstTimestamp, maxTimestamp, recordCount, batchLength
// and the CRC are computed. A Builder is not safe for concurrent use.
type Builder struct {
	h       BatchHeader
	recs    []Record
	ts      []int64
	horizon bool
}

// NewBuilder starts a batch at baseOffset compressed with codec, with no
// producer (id, epoch and base sequence -1), no partition leader epoch (-1)
// and CreateTime timestamps, which is what a non-idempotent client sends.
func NewBuilder(baseOffset int64, codec Codec) *Builder {
	return &Builder{h: BatchHeader{
		BaseOffset:           baseOffset,
		PartitionLeaderEpoch: -1,
		Attributes:           int16(codec) & AttrCompressionMask,
		FirstTimestamp:       -1,
		MaxTimestamp:         -1,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
	}}
}

func (b *Builder) setAttr(bit int16, on bool) {
	if on {
		b.h.Attributes |= bit
	} else {
		b.h.Attributes &^= bit
	}
}

// SetProducer records the idempotent producer's id, epoch and the sequence
// number of the first record.
func (b *Builder) SetProducer(id int64, epoch int16, baseSequence int32) {
	b.h.ProducerID, b.h.ProducerEpoch, b.h.BaseSequence = id, epoch, baseSequence
}

// SetPartitionLeaderEpoch sets the leader epoch the broker stamps.
func (b *Builder) SetPartitionLeaderEpoch(epoch int32) { b.h.PartitionLeaderEpoch = epoch }

// SetTransactional sets the transactional attribute bit.
func (b *Builder) SetTransactional(on bool) { b.setAttr(AttrTransactional, on) }

// SetControl sets the control attribute bit; the records should then be
// control records (see ControlKey and EndTxnMarker).
func (b *Builder) SetControl(on bool) { b.setAttr(AttrControl, on) }

// SetLogAppendTime marks the batch's timestamps as broker-assigned at ts,
// which becomes maxTimestamp.
func (b *Builder) SetLogAppendTime(ts int64) {
	b.setAttr(AttrTimestampType, true)
	b.h.MaxTimestamp = ts
}

// SetDeleteHorizon stores a compaction delete horizon (KIP-534): bit 6 is
// set, firstTimestamp holds ms and the record deltas are taken from it.
func (b *Builder) SetDeleteHorizon(ms int64) {
	b.setAttr(AttrDeleteHorizonSet, true)
	b.h.FirstTimestamp = ms
	b.horizon = true
}

// Append adds a record at the next offset. The slices are kept, not copied,
// until the batch is built. A nil key or value is null.
func (b *Builder) Append(ts int64, key, value []byte, headers []Header) {
	b.recs = append(b.recs, Record{OffsetDelta: int32(len(b.recs)), Key: key, Value: value, Headers: headers})
	b.ts = append(b.ts, ts)
}

// Len is the number of records appended.
func (b *Builder) Len() int { return len(b.recs) }

var errEmptyBatch = errors.New("record: build batch: no records (an empty batch has no valid lastOffsetDelta)")

// Build returns the encoded batch.
func (b *Builder) Build() ([]byte, error) { return b.AppendTo(nil) }

// AppendTo appends the encoded batch to dst. The builder can keep
// appending records and build again.
func (b *Builder) AppendTo(dst []byte) ([]byte, error) {
	if len(b.recs) == 0 {
		return dst, errEmptyBatch
	}
	h := b.h
	if !b.horizon {
		h.FirstTimestamp = b.ts[0]
	}
	maxTS := b.ts[0]
	for i, ts := range b.ts {
		b.recs[i].TimestampDelta = ts - h.FirstTimestamp
		maxTS = max(maxTS, ts)
	}
	if !h.LogAppendTime() {
		h.MaxTimestamp = maxTS
	}
	h.LastOffsetDelta = int32(len(b.recs) - 1)
	batch := Batch{BatchHeader: h, Records: b.recs}
	return batch.AppendTo(dst)
}
