package storage

import (
	"fmt"
	"math"

	"kafgo/broker/record"
)

// batchFilter decides, batch by batch, what of a log survives a cleaning
// pass (Kafka's Cleaner.cleanInto with MemoryRecords.filterTo). Rules:
//
//   - a batch at or beyond end (not covered by the offset map) is kept byte
//     for byte;
//   - a data batch of an aborted transaction loses every record; a
//     transaction marker the walk finds discardable (see cleanedTxns) is
//     kept until its delete horizon (KIP-534, as tombstones: the first pass
//     stores now + delete.retention.ms in it) and dropped after; any other
//     control batch is kept byte for byte;
//   - a record without a key is dropped (compacted topics refuse them);
//   - a record whose key the map holds at a higher offset is dropped: a
//     later record of the key exists;
//   - a tombstone (null value) is kept until its batch's delete horizon
//     has passed (KIP-534): the first pass that keeps it stores
//     now + delete.retention.ms in the batch (attribute bit 6,
//     firstTimestamp), and a pass at or after that time drops it;
//   - a batch that keeps every record, and needs no new horizon, is copied
//     byte for byte; otherwise it is rebuilt with the same baseOffset,
//     lastOffsetDelta, producer id, epoch and base sequence, partition
//     leader epoch, timestamp type and codec (recompressed), and with each
//     record's offset delta unchanged, so no offset is renumbered;
//   - a batch that keeps no record is dropped, except that an idempotent
//     producer's last batch stays as an empty batch (header only,
//     recordCount 0), as Kafka keeps it: it holds the producer's last
//     sequence for deduplication after a reload; so does a marker that is
//     the last batch of a producer without data batches (it holds the
//     epoch that fences zombies). (cleanGroup also keeps the last batch of
//     each destination segment this way.)
type batchFilter struct {
	om              *offsetMap
	end             int64 // records at or beyond it were not mapped
	now             int64
	deleteRetention int64
	producerLast    map[int64]producerTail
	txns            *cleanedTxns

	recs   []record.Record // scratch: the records of one batch, then the kept ones
	hashes []keyHash       // scratch: their key hashes

	// horizon is the earliest delete horizon of a written batch that
	// still holds a tombstone, math.MaxInt64 when none: when the next pass
	// has work without any new data.
	horizon int64
	stats   *CleanStats
}

// producerTail is what the cleaner must keep of an active producer (Kafka's
// LastRecord): the last offset of its last data batch (-1 when no batch is
// retained, as after a marker bumped its epoch) and its epoch.
type producerTail struct {
	lastData int64
	epoch    int16
}

// isProducerLast reports whether h is the batch an active producer's state
// rests on: its last data batch, or with none, a marker of its epoch.
func (f *batchFilter) isProducerLast(h *record.BatchHeader) bool {
	t, ok := f.producerLast[h.ProducerID]
	if !ok || h.ProducerID < 0 {
		return false
	}
	if t.lastData >= 0 {
		return h.LastOffset() == t.lastData
	}
	return h.IsControl() && h.ProducerEpoch == t.epoch
}

// batchFate is what filter did with a batch.
type batchFate int

const (
	fateCopied  batchFate = iota // written as it was
	fateRebuilt                  // written with fewer records or a new horizon
	fateEmptied                  // written as an empty batch
	fateDropped                  // not written
)

// filter appends to dst what survives of batch b, a whole batch read from
// a segment.
func (f *batchFilter) filter(dst, b []byte) ([]byte, batchFate, error) {
	h, err := record.ParseBatchHeader(b)
	if err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: %w: %w", ErrCorruptFile, err)
	}
	if h.Size() != len(b) {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d is %d bytes, its header says %d: %w", h.BaseOffset, len(b), h.Size(), ErrCorruptFile)
	}
	f.stats.BatchesRead++
	f.stats.RecordsRead += int64(h.RecordCount)
	if h.BaseOffset >= f.end {
		return f.copyBatch(dst, b, &h)
	}
	if h.IsControl() {
		return f.filterControl(dst, b, &h)
	}
	if f.txns.onData(&h) {
		if f.isProducerLast(&h) {
			out, err := appendEmptyBatch(dst, &h)
			return out, fateEmptied, err
		}
		return dst, fateDropped, nil
	}
	_, it, err := record.IterRecords(b, maxDecompressedBatch)
	if err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	horizon, hasHorizon := h.DeleteHorizon()
	// Decode and hash every record first so the map lookups can be
	// prefetched together (see offsetMap.prefetch), then filter in place.
	f.recs, f.hashes = f.recs[:0], f.hashes[:0]
	for it.Next() {
		r := *it.Record()
		if len(r.Headers) > 0 {
			// The iterator reuses its header slice for the next record.
			r.Headers = append([]record.Header(nil), r.Headers...)
		}
		f.recs = append(f.recs, r)
		if r.Key != nil {
			f.hashes = append(f.hashes, f.om.hash(r.Key))
		} else {
			f.hashes = append(f.hashes, keyHash{})
		}
	}
	if err := it.Err(); err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	f.om.prefetch(f.hashes)
	kept, tombstones := f.recs[:0], 0
	for i := range f.recs {
		r := &f.recs[i]
		if !f.keep(&h, r, f.hashes[i], horizon, hasHorizon) {
			continue
		}
		if r.Value == nil {
			tombstones++
		}
		kept = append(kept, *r)
	}
	f.recs = kept
	f.stats.RecordsKept += int64(len(f.recs))
	if len(f.recs) == 0 {
		if f.isProducerLast(&h) {
			out, err := appendEmptyBatch(dst, &h)
			return out, fateEmptied, err
		}
		return dst, fateDropped, nil
	}
	hadHorizon := hasHorizon
	switch {
	case tombstones == 0:
		// Without tombstones a horizon means nothing; dropping it keeps a
		// horizon-driven pass from being scheduled for this batch.
		hasHorizon = false
	case !hasHorizon:
		horizon, hasHorizon = satAdd(f.now, f.deleteRetention), true
	}
	if hasHorizon {
		f.horizon = min(f.horizon, horizon)
	}
	if len(f.recs) == int(h.RecordCount) && hasHorizon == hadHorizon {
		return append(dst, b...), fateCopied, nil
	}
	out, err := rebuildBatch(dst, &h, f.recs, horizon, hasHorizon)
	return out, fateRebuilt, err
}

// copyBatch writes b as it is, after checking its CRC.
func (f *batchFilter) copyBatch(dst, b []byte, h *record.BatchHeader) ([]byte, batchFate, error) {
	if err := record.VerifyCRC(b); err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	f.stats.RecordsKept += int64(h.RecordCount)
	return append(dst, b...), fateCopied, nil
}

// filterControl applies the marker rules to control batch b below end:
// kept while its transaction may still need it, then kept until its delete
// horizon, then dropped (or emptied when its producer's state rests on it).
func (f *batchFilter) filterControl(dst, b []byte, h *record.BatchHeader) ([]byte, batchFate, error) {
	if err := record.VerifyCRC(b); err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	discard, err := f.txns.onControl(h, b)
	if err != nil || !discard {
		if err != nil {
			return dst, fateDropped, err
		}
		return f.copyBatch(dst, b, h)
	}
	horizon, hasHorizon := h.DeleteHorizon()
	switch {
	case h.RecordCount == 0 || hasHorizon && f.now >= horizon:
		if f.isProducerLast(h) {
			if h.RecordCount == 0 {
				return f.copyBatch(dst, b, h)
			}
			out, err := appendEmptyBatch(dst, h)
			return out, fateEmptied, err
		}
		return dst, fateDropped, nil
	case hasHorizon:
		f.horizon = min(f.horizon, horizon)
		return f.copyBatch(dst, b, h)
	}
	_, it, err := record.IterRecords(b, maxDecompressedBatch)
	if err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	f.recs = f.recs[:0]
	for it.Next() {
		f.recs = append(f.recs, *it.Record())
	}
	if err := it.Err(); err != nil {
		return dst, fateDropped, fmt.Errorf("storage: clean: batch at offset %d: %w: %w", h.BaseOffset, ErrCorruptFile, err)
	}
	horizon = satAdd(f.now, f.deleteRetention)
	f.horizon = min(f.horizon, horizon)
	f.stats.RecordsKept += int64(len(f.recs))
	out, err := rebuildBatch(dst, h, f.recs, horizon, true)
	return out, fateRebuilt, err
}

// keep applies the record rules above to one record of a batch below end.
func (f *batchFilter) keep(h *record.BatchHeader, r *record.Record, kh keyHash, horizon int64, hasHorizon bool) bool {
	if r.Key == nil {
		return false
	}
	if latest, ok := f.om.getHash(kh); ok && h.OffsetOf(r) < latest {
		return false
	}
	if r.Value == nil && hasHorizon && f.now >= horizon {
		return false
	}
	return true
}

// rebuildBatch appends a batch holding recs in place of the batch h. The
// header keeps everything that identifies the batch; firstTimestamp becomes
// the delete horizon when there is one, else the first kept record's
// timestamp, and each record's timestamp delta is rebased on it so its
// timestamp does not change. A CreateTime batch's maxTimestamp becomes the
// largest kept timestamp; under LogAppendTime it stays (records read it).
func rebuildBatch(dst []byte, h *record.BatchHeader, recs []record.Record, horizon int64, hasHorizon bool) ([]byte, error) {
	nh := *h
	nh.Attributes &^= record.AttrDeleteHorizonSet
	raw := func(r *record.Record) int64 { return h.FirstTimestamp + r.TimestampDelta }
	switch {
	case hasHorizon:
		nh.Attributes |= record.AttrDeleteHorizonSet
		nh.FirstTimestamp = horizon
	default:
		nh.FirstTimestamp = raw(&recs[0])
	}
	maxTs := int64(math.MinInt64)
	for i := range recs {
		ts := raw(&recs[i])
		maxTs = max(maxTs, ts)
		recs[i].TimestampDelta = ts - nh.FirstTimestamp
	}
	if !h.LogAppendTime() {
		nh.MaxTimestamp = maxTs
	}
	b := record.Batch{BatchHeader: nh, Records: recs}
	out, err := b.AppendTo(dst)
	if err != nil {
		return dst, fmt.Errorf("storage: clean: rebuild batch at offset %d: %w", h.BaseOffset, err)
	}
	return out, nil
}

// appendEmptyBatch appends the header-only batch Kafka's cleaner keeps for
// a producer's last batch (DefaultRecordBatch.writeEmptyHeader): no records,
// no codec, both timestamps the original maxTimestamp, and the offsets,
// producer fields, leader epoch and transactional/control bits unchanged.
func appendEmptyBatch(dst []byte, h *record.BatchHeader) ([]byte, error) {
	eh := *h
	eh.Attributes = h.Attributes & (record.AttrTimestampType | record.AttrTransactional | record.AttrControl)
	eh.FirstTimestamp = h.MaxTimestamp
	b := record.Batch{BatchHeader: eh}
	out, err := b.AppendTo(dst)
	if err != nil {
		return dst, fmt.Errorf("storage: clean: empty batch at offset %d: %w", h.BaseOffset, err)
	}
	return out, nil
}

// satAdd is a+b for b >= 0, saturating at math.MaxInt64 (a huge
// delete.retention.ms means "keep tombstones forever").
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
