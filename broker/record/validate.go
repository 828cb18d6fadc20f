package record

import "strconv"

// ValidateBatch checks a batch a client produced, before the broker assigns
// offsets and appends it, following Kafka's LogValidator. batch must be
// exactly one batch (Produce v3+ carries one per partition). It checks the
// length, magic 2 and the CRC, decompresses the records (at most
// maxDecompressed bytes) and walks every record, and requires:
//
//   - recordCount > 0 and lastOffsetDelta == recordCount-1;
//   - recordCount records present, each well-formed, nothing after them;
//   - offset deltas 0, 1, ..., recordCount-1 in order;
//   - no control bit (only brokers write control batches);
//   - a base sequence when a producer id is set.
//
// Failures are *Error values: KindCorrupt for bytes that do not decode
// (CORRUPT_MESSAGE), KindInvalid for the rules above and a magic other
// than 2 (INVALID_RECORD). Timestamps are not checked; their limits are
// topic configuration, the broker's business.
func ValidateBatch(batch []byte, maxDecompressed int) (BatchHeader, error) {
	h, err := ParseBatchHeader(batch)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Field == "magic" {
			return h, withKind(err, KindInvalid)
		}
		return h, err
	}
	if size := h.Size(); len(batch) < size {
		return h, truncatedf(len(batch), "batchLength", "batch of %d bytes, only %d present", size, len(batch))
	} else if len(batch) > size {
		return h, invalidf(size, "batchLength", "%d bytes follow the batch; a produce request carries one batch per partition", len(batch)-size)
	}
	if err := VerifyCRC(batch); err != nil {
		return h, err
	}
	switch {
	case h.IsControl():
		return h, invalidf(offAttributes, "attributes", "clients may not write control batches")
	case h.RecordCount <= 0:
		return h, invalidf(offRecordCount, "recordCount", "%d; a batch must hold records", h.RecordCount)
	case int64(h.LastOffsetDelta)+1 != int64(h.RecordCount):
		return h, invalidf(offLastOffsetDelta, "lastOffsetDelta", "%d does not match recordCount %d", h.LastOffsetDelta, h.RecordCount)
	case h.ProducerID >= 0 && h.BaseSequence < 0:
		return h, invalidf(offBaseSequence, "baseSequence", "%d with producer id %d", h.BaseSequence, h.ProducerID)
	}
	buf := scratch.Get().(*[]byte)
	defer putScratch(buf)
	section, err := recordsSection(&h, batch, maxDecompressed, *buf)
	if err != nil {
		return h, err
	}
	if h.Codec() != CodecNone {
		*buf = section // keep the grown buffer for the next call
	}
	it := newRecordIter(section, h.RecordCount, h.Codec() != CodecNone)
	it.keep = false
	for it.Next() {
		if want := int32(it.Index()); it.rec.OffsetDelta != want {
			return h, it.d.mark(invalidf(it.d.base+it.start, "record "+strconv.Itoa(it.Index())+" offsetDelta",
				"%d, want %d: offset deltas must run 0..recordCount-1", it.rec.OffsetDelta, want))
		}
	}
	return h, it.Err()
}
