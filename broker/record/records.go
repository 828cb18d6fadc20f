package record

// RecordIter decodes the records of one records section one at a time, for
// callers that look at each record once (compaction reading keys, the
// produce-path walk) and need not hold them all.
type RecordIter struct {
	d     recDecoder
	pos   int
	count int32
	n     int32
	rec   Record
	hdrs  []Header
	err   error
	done  bool
	keep  bool // materialise headers; the produce-path walk does not
	start int  // position of the current record
}

// NewRecordIter iterates over section, the uncompressed records of a
// batch, expecting exactly count records. Error offsets count the section
// as starting at batch byte 61.
func NewRecordIter(section []byte, count int32) *RecordIter {
	return newRecordIter(section, count, false)
}

func newRecordIter(section []byte, count int32, decompressed bool) *RecordIter {
	it := &RecordIter{d: recDecoder{b: section, base: BatchHeaderSize, decompressed: decompressed}, count: count, keep: true}
	if count < 0 {
		it.err = invalidf(offRecordCount, "recordCount", "%d is negative", count)
	}
	return it
}

// Next decodes the next record. It returns false at the end of the section
// or at the first error; Err tells which.
func (it *RecordIter) Next() bool {
	if it.err != nil || it.done {
		return false
	}
	if it.n == it.count {
		it.done = true
		it.err = it.checkEnd()
		return false
	}
	if it.pos == len(it.d.b) {
		it.err = it.d.mark(invalidf(it.d.base+it.pos, "recordCount", "batch declares %d records but the records section holds %d", it.count, it.n))
		return false
	}
	next, hdrs, err := it.d.record(it.pos, int(it.n), &it.rec, it.hdrs[:0], it.keep)
	it.hdrs = hdrs
	if err != nil {
		it.err = err
		return false
	}
	it.start, it.pos = it.pos, next
	it.n++
	return true
}

// checkEnd reports bytes left after the declared records. When they decode
// as another record the count is wrong (INVALID_RECORD); otherwise they are
// garbage (CORRUPT_MESSAGE).
func (it *RecordIter) checkEnd() error {
	left := len(it.d.b) - it.pos
	if left == 0 {
		return nil
	}
	var r Record
	if _, _, err := it.d.record(it.pos, int(it.n), &r, nil, false); err == nil {
		return it.d.mark(invalidf(it.d.base+it.pos, "recordCount", "batch declares %d records but more follow", it.count))
	}
	return it.d.mark(corruptf(it.d.base+it.pos, "records", "%d bytes of garbage after the last of %d records", left, it.count))
}

// Record returns the current record. It and its Headers stay valid only
// until the next call to Next; Key, Value and header values alias the
// section, so copy them to keep them past the section's lifetime.
func (it *RecordIter) Record() *Record { return &it.rec }

// Index is the position of the current record in the batch, from 0.
func (it *RecordIter) Index() int { return int(it.n) - 1 }

// Err returns the error that stopped the iteration, nil at a clean end.
func (it *RecordIter) Err() error { return it.err }

// DecodeRecords decodes a whole uncompressed records section holding
// exactly count records. Keys and values alias section.
func DecodeRecords(section []byte, count int32) ([]Record, error) {
	return decodeRecords(section, count, false)
}

func decodeRecords(section []byte, count int32, decompressed bool) ([]Record, error) {
	it := newRecordIter(section, count, decompressed)
	if it.err != nil {
		return nil, it.err
	}
	// count comes from the wire: allocate no more than the bytes can hold.
	recs := make([]Record, 0, min(int(count), len(section)/minRecordSize))
	for {
		it.hdrs = nil // each record keeps its own headers
		if !it.Next() {
			break
		}
		recs = append(recs, it.rec)
	}
	if it.err != nil {
		return nil, it.err
	}
	return recs, nil
}

// IterRecords checks a whole batch's framing and CRC, decompresses its
// records (at most maxDecompressed bytes) and returns its header and an
// iterator over them.
func IterRecords(batch []byte, maxDecompressed int) (BatchHeader, *RecordIter, error) {
	h, section, err := openBatch(batch, maxDecompressed, nil)
	if err != nil {
		return h, nil, err
	}
	return h, newRecordIter(section, h.RecordCount, h.Codec() != CodecNone), nil
}
