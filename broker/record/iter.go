package record

// BatchIter walks a buffer of concatenated v2 batches, such as a segment
// file, checking only the framing: each batch must be complete, have magic
// 2 and a plausible header. It does not check CRCs, so a dump tool can
// still show a damaged batch; storage recovery calls VerifyCRC on Raw.
//
//	it := record.NewBatchIter(data)
//	for it.Next() {
//		h := it.Header()
//		_ = h
//	}
//	if err := it.Err(); err != nil {
//		// it.Pos() is where the valid prefix ends.
//	}
type BatchIter struct {
	buf []byte
	pos int // start of the current batch, or of the failing one
	end int // end of the current batch
	hdr BatchHeader
	err error
}

// NewBatchIter iterates over b, which must start at a batch boundary.
func NewBatchIter(b []byte) *BatchIter { return &BatchIter{buf: b} }

// Next advances to the next batch. It returns false at the end of the
// buffer (Err nil) or at the first batch that is torn or malformed (Err
// says why; Pos is its position).
func (it *BatchIter) Next() bool {
	if it.err != nil {
		return false
	}
	it.pos = it.end
	rest := it.buf[it.pos:]
	if len(rest) == 0 {
		return false
	}
	h, err := ParseBatchHeader(rest)
	if err != nil {
		it.err = shifted(err, it.pos)
		return false
	}
	if size := h.Size(); size > len(rest) {
		it.err = truncatedf(len(it.buf), "batchLength", "batch at byte %d needs %d bytes, %d remain", it.pos, size, len(rest))
		return false
	}
	it.hdr = h
	it.end = it.pos + h.Size()
	return true
}

// Header is the current batch's header.
func (it *BatchIter) Header() BatchHeader { return it.hdr }

// Raw is the current batch's bytes, aliasing the buffer.
func (it *BatchIter) Raw() []byte { return it.buf[it.pos:it.end:it.end] }

// Pos is the byte position of the current batch, or after a failed Next
// of the batch that failed; with a nil Err after the loop it is the end.
func (it *BatchIter) Pos() int { return it.pos }

// Err is the error that stopped the iteration; nil at a clean end.
func (it *BatchIter) Err() error { return it.err }
