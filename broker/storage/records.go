package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"kafgo/broker/record"
)

// walkRecordTimestamps calls fn with the offset and timestamp of each record
// of an uncompressed v2 batch, in order, until fn returns false. Only the
// length, attributes, timestampDelta and offsetDelta of each record are
// decoded; keys, values and headers are skipped by the record length. It is
// private on purpose: the record package owns full decoding, storage only
// needs timestamps (time index offsets, ListOffsets by timestamp).
// LogAppendTime batches report the batch's maxTimestamp for every record, as
// Kafka's DefaultRecordBatch does.
func walkRecordTimestamps(batch []byte, h *record.BatchHeader, fn func(offset, ts int64) bool) error {
	if len(batch) < record.BatchHeaderSize || len(batch) < h.Size() {
		return fmt.Errorf("storage: batch at offset %d: %d bytes, header says %d: %w", h.BaseOffset, len(batch), h.Size(), ErrInvalidBatch)
	}
	b := batch[record.BatchHeaderSize:h.Size()]
	appendTime := h.LogAppendTime()
	p := 0
	for i := int32(0); i < h.RecordCount; i++ {
		length, n := binary.Varint(b[p:])
		if n <= 0 || length < 1 || length > math.MaxInt32 || length > int64(len(b)-p-n) {
			return fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad record length: %w", h.BaseOffset, i, record.BatchHeaderSize+p, ErrInvalidBatch)
		}
		rec := b[p+n : p+n+int(length)]
		tsDelta, m := binary.Varint(rec[1:]) // rec[0] is the unused attributes byte
		if m <= 0 {
			return fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad timestampDelta: %w", h.BaseOffset, i, record.BatchHeaderSize+p, ErrInvalidBatch)
		}
		offDelta, k := binary.Varint(rec[1+m:])
		if k <= 0 || offDelta < 0 || offDelta > math.MaxInt32 {
			return fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad offsetDelta: %w", h.BaseOffset, i, record.BatchHeaderSize+p, ErrInvalidBatch)
		}
		ts := h.FirstTimestamp + tsDelta
		if appendTime {
			ts = h.MaxTimestamp
		}
		if !fn(h.BaseOffset+offDelta, ts) {
			return nil
		}
		p += n + int(length)
	}
	return nil
}

// maxTimestampRecord returns the largest record timestamp of an uncompressed
// batch and the offset of the first record carrying it, the way Kafka's
// leader-side validation computes offsetOfMaxTimestamp. A batch whose
// records all lack timestamps yields (NO_TIMESTAMP, -1).
func maxTimestampRecord(batch []byte, h *record.BatchHeader) (ts, offset int64, err error) {
	ts, offset = noTimestamp, -1
	err = walkRecordTimestamps(batch, h, func(o, t int64) bool {
		if t > ts {
			ts, offset = t, o
		}
		return true
	})
	return ts, offset, err
}
