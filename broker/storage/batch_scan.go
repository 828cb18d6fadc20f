package storage

import (
	"errors"
	"fmt"
	"io"

	"kafgo/broker/record"
)

// errTornBatch marks a batch that does not fit in the bytes that remain: the
// tail of a write cut short by a crash.
var errTornBatch = errors.New("storage: torn batch")

// scanBufSize is the read-ahead window of a sequential scan.
const scanBufSize = 256 << 10

// batchScanner walks the batches of a segment file sequentially through a
// read-ahead window, so recovery and producer-state replay cost one read per
// window instead of one per batch. It never reads at or past end, and every
// batch length is checked against the bytes remaining before anything is
// allocated for it.
type batchScanner struct {
	r      io.ReaderAt
	name   string
	pos    int64 // file position of the next batch
	end    int64
	buf    []byte
	bufOff int64
	bufLen int
}

func newBatchScanner(r io.ReaderAt, name string, start, end int64) *batchScanner {
	return &batchScanner{r: r, name: name, pos: start, end: end}
}

// next returns the next batch's header and file position, and with body the
// whole batch (valid until the following call). At the end it returns
// io.EOF; a batch cut short returns an error wrapping errTornBatch; a header
// that does not parse returns the record package's error.
func (s *batchScanner) next(body bool) (h record.BatchHeader, pos int64, batch []byte, err error) {
	pos = s.pos
	if pos >= s.end {
		return h, pos, nil, io.EOF
	}
	rem := s.end - pos
	if rem < record.BatchHeaderSize {
		return h, pos, nil, fmt.Errorf("storage: %s byte %d: %d bytes left, a batch header needs %d: %w", s.name, pos, rem, record.BatchHeaderSize, errTornBatch)
	}
	hb, err := s.window(pos, record.BatchHeaderSize)
	if err != nil {
		return h, pos, nil, err
	}
	h, err = record.ParseBatchHeader(hb)
	if err != nil {
		return h, pos, nil, fmt.Errorf("storage: %s byte %d: %w", s.name, pos, err)
	}
	size := int64(h.Size())
	if size > rem {
		return h, pos, nil, fmt.Errorf("storage: %s byte %d: batch of %d bytes, only %d left: %w", s.name, pos, size, rem, errTornBatch)
	}
	if body {
		if batch, err = s.window(pos, size); err != nil {
			return h, pos, nil, err
		}
	}
	s.pos = pos + size
	return h, pos, batch, nil
}

// window returns the n bytes at file position off, refilling the buffer
// when they are not all in it. Callers guarantee off+n <= end.
func (s *batchScanner) window(off, n int64) ([]byte, error) {
	if off >= s.bufOff && off+n <= s.bufOff+int64(s.bufLen) {
		i := off - s.bufOff
		return s.buf[i : i+n], nil
	}
	want := max(n, min(int64(scanBufSize), s.end-off))
	if int64(cap(s.buf)) < want {
		s.buf = make([]byte, want)
	}
	s.buf = s.buf[:want]
	got, err := s.r.ReadAt(s.buf, off)
	if int64(got) < n {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("storage: %s byte %d: file ends after %d of %d bytes: %w", s.name, off, got, n, errTornBatch)
		}
		return nil, fmt.Errorf("storage: read %s at byte %d: %w", s.name, off, err)
	}
	s.bufOff, s.bufLen = off, got
	return s.buf[:n], nil
}

// readHeaderAt reads the batch header at pos of a file whose readable bytes
// end at end, checking that the whole batch lies before end.
func readHeaderAt(r io.ReaderAt, name string, pos, end int64) (record.BatchHeader, error) {
	var h record.BatchHeader
	if end-pos < record.BatchHeaderSize {
		return h, fmt.Errorf("storage: %s byte %d: %d bytes left, a batch header needs %d: %w", name, pos, end-pos, record.BatchHeaderSize, errTornBatch)
	}
	var buf [record.BatchHeaderSize]byte
	if _, err := r.ReadAt(buf[:], pos); err != nil {
		return h, fmt.Errorf("storage: read %s header at byte %d: %w", name, pos, err)
	}
	h, err := record.ParseBatchHeader(buf[:])
	if err != nil {
		return h, fmt.Errorf("storage: %s byte %d: %w", name, pos, err)
	}
	if int64(h.Size()) > end-pos {
		return h, fmt.Errorf("storage: %s byte %d: batch of %d bytes, only %d left: %w", name, pos, h.Size(), end-pos, errTornBatch)
	}
	return h, nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
