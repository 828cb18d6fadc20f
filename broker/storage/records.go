package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"kafgo/broker/record"
)

// maxDecompressedBatch bounds one decompressed batch read back from the log
// (cleaning, timestamp lookups). What is in the log passed produce
// validation already, so this only guards against a corrupt length turning
// into an absurd allocation.
const maxDecompressedBatch = 1 << 30

// walkRecordTimestamps calls fn with the offset and timestamp of each record
// of a v2 batch, in order, until fn returns false. For an uncompressed batch
// only the length, attributes, timestampDelta and offsetDelta of each record
// are decoded; keys, values and headers are skipped by the record length. A
// compressed batch is decompressed and decoded by the record package, as
// Kafka iterates one to answer a timestamp lookup. LogAppendTime batches
// report the batch's maxTimestamp for every record, as Kafka's
// DefaultRecordBatch does.
func walkRecordTimestamps(batch []byte, h *record.BatchHeader, fn func(offset, ts int64) bool) error {
	if h.Attributes&attrCompressionMask != 0 {
		return walkCompressedTimestamps(batch, h, fn)
	}
	var w recordWalker
	if err := w.init(batch, h); err != nil {
		return err
	}
	for w.next() {
		if !fn(w.offset, w.ts) {
			return nil
		}
	}
	return w.err
}

func walkCompressedTimestamps(batch []byte, h *record.BatchHeader, fn func(offset, ts int64) bool) error {
	if len(batch) < h.Size() {
		return fmt.Errorf("storage: batch at offset %d: %d bytes, header says %d: %w", h.BaseOffset, len(batch), h.Size(), ErrInvalidBatch)
	}
	bh, it, err := record.IterRecords(batch[:h.Size()], maxDecompressedBatch)
	if err != nil {
		return fmt.Errorf("storage: batch at offset %d: %w: %w", h.BaseOffset, ErrInvalidBatch, err)
	}
	for it.Next() {
		r := it.Record()
		if !fn(bh.OffsetOf(r), bh.TimestampOf(r)) {
			return nil
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("storage: batch at offset %d: %w: %w", h.BaseOffset, ErrInvalidBatch, err)
	}
	return nil
}

// recordWalker steps through the record prefixes of an uncompressed batch.
type recordWalker struct {
	h          *record.BatchHeader
	b          []byte
	p          int
	i          int32
	appendTime bool
	offset, ts int64
	err        error
}

func (w *recordWalker) init(batch []byte, h *record.BatchHeader) error {
	if len(batch) < record.BatchHeaderSize || len(batch) < h.Size() {
		return fmt.Errorf("storage: batch at offset %d: %d bytes, header says %d: %w", h.BaseOffset, len(batch), h.Size(), ErrInvalidBatch)
	}
	*w = recordWalker{h: h, b: batch[record.BatchHeaderSize:h.Size()], appendTime: h.Attributes&attrLogAppendTime != 0}
	return nil
}

// next decodes the next record's offset and timestamp; false at the end or
// on an error (in w.err).
func (w *recordWalker) next() bool {
	if w.i >= w.h.RecordCount || w.err != nil {
		return false
	}
	b, p := w.b, w.p
	length, n := binary.Varint(b[p:])
	if n <= 0 || length < 1 || length > math.MaxInt32 || length > int64(len(b)-p-n) {
		w.err = fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad record length: %w", w.h.BaseOffset, w.i, record.BatchHeaderSize+p, ErrInvalidBatch)
		return false
	}
	rec := b[p+n : p+n+int(length)]
	tsDelta, m := binary.Varint(rec[1:]) // rec[0] is the unused attributes byte
	if m <= 0 {
		w.err = fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad timestampDelta: %w", w.h.BaseOffset, w.i, record.BatchHeaderSize+p, ErrInvalidBatch)
		return false
	}
	offDelta, k := binary.Varint(rec[1+m:])
	if k <= 0 || offDelta < 0 || offDelta > math.MaxInt32 {
		w.err = fmt.Errorf("storage: batch at offset %d record %d (byte %d): bad offsetDelta: %w", w.h.BaseOffset, w.i, record.BatchHeaderSize+p, ErrInvalidBatch)
		return false
	}
	w.offset = w.h.BaseOffset + offDelta
	w.ts = w.h.FirstTimestamp + tsDelta
	if w.appendTime {
		w.ts = w.h.MaxTimestamp
	}
	w.p = p + n + int(length)
	w.i++
	return true
}

// maxRecordTimestamp returns the largest record timestamp of an
// uncompressed batch, what Kafka's leader-side validation stores as the
// batch's maxTimestamp; NO_TIMESTAMP when no record has one. The walk stops
// at the first record reaching the header's maxTimestamp: with a validated
// batch nothing later can beat it, and producers that stamp a batch within
// one millisecond make that the first record.
func maxRecordTimestamp(batch []byte, h *record.BatchHeader) (int64, error) {
	ts := int64(noTimestamp)
	var w recordWalker
	if err := w.init(batch, h); err != nil {
		return ts, err
	}
	for w.next() {
		ts = max(ts, w.ts)
		if w.ts >= h.MaxTimestamp {
			break
		}
	}
	return ts, w.err
}
