package dumplog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"kafgo/broker/record"
)

// errRead marks a failure to read the file (as opposed to bytes that are
// wrong), which makes the file "failed" rather than "corrupt".
var errRead = errors.New("dumplog: read failed")

// entry is one batch (magic 2) or legacy message (magic 0/1) of a .log,
// what Kafka's FileRecords.batches yields.
type entry struct {
	pos    int64
	raw    []byte // the whole entry; aliases the reader's buffer
	legacy bool
	batch  record.BatchHeader   // !legacy
	msg    record.LegacyMessage // legacy
}

func (e *entry) size() int64 { return int64(len(e.raw)) }

// lastOffset is Kafka's batch.lastOffset: a legacy wrapper carries the
// offset of its last inner message.
func (e *entry) lastOffset() int64 {
	if e.legacy {
		return e.msg.Offset
	}
	return e.batch.LastOffset()
}

// segmentReader reads entries of a segment file one at a time with
// bounded reads, so memory stays at one batch however large the file.
type segmentReader struct {
	r   io.ReaderAt
	buf []byte
}

// maxKeptBuffer keeps one huge batch from pinning its buffer for the rest
// of a dump.
const maxKeptBuffer = 8 << 20

func (s *segmentReader) read(pos int64, n int) ([]byte, error) {
	if cap(s.buf) < n || cap(s.buf) > maxKeptBuffer && n <= maxKeptBuffer {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	if m, err := s.r.ReadAt(b, pos); m < n {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %d bytes at byte %d: %w", errRead, n, pos, err)
	}
	return b, nil
}

// at reads the entry starting at pos of a file whose readable bytes end at
// end. It returns io.EOF at end; otherwise an error says why no entry can
// be framed there: a record package error (positions made file positions)
// or one wrapping record.ErrTruncated when the entry runs past end. Every
// length is checked against the bytes left before anything is read for it.
func (s *segmentReader) at(pos, end int64) (entry, error) {
	rem := end - pos
	if rem <= 0 {
		return entry{}, io.EOF
	}
	head, err := s.read(pos, int(min(rem, record.BatchHeaderSize)))
	if err != nil {
		return entry{}, err
	}
	magic, err := record.PeekMagic(head)
	if err != nil {
		return entry{}, atFile(err, pos)
	}
	if magic == 0 || magic == 1 {
		return s.legacyAt(pos, rem, head)
	}
	// Any other magic goes to the v2 parser, which names it.
	h, err := record.ParseBatchHeader(head)
	if err != nil {
		return entry{}, atFile(err, pos)
	}
	if int64(h.Size()) > rem {
		return entry{}, torn("batch", h.Size(), rem)
	}
	raw, err := s.read(pos, h.Size())
	if err != nil {
		return entry{}, err
	}
	return entry{pos: pos, raw: raw, batch: h}, nil
}

// minLegacyToMagic is the smallest messageSize that covers the crc and
// magic fields.
const minLegacyToMagic = 5

// legacyAt frames a magic 0/1 message. LegacyIter decodes it; it is handed
// exactly the message's bytes once they are known to be present.
func (s *segmentReader) legacyAt(pos, rem int64, head []byte) (entry, error) {
	field := int32(binary.BigEndian.Uint32(head[8:]))
	if field >= 0 && field < minLegacyToMagic {
		// LegacyIter would cut the message before its magic byte and call
		// it truncated; the size field itself is what is wrong.
		return entry{}, fmt.Errorf("dumplog: messageSize at byte %d: %d does not reach the magic byte: %w", pos+8, field, record.ErrCorrupt)
	}
	size := record.LogOverhead + int64(field)
	if size > rem {
		return entry{}, torn("message", size, rem)
	}
	buf := head
	if size > int64(len(head)) {
		var err error
		if buf, err = s.read(pos, int(size)); err != nil {
			return entry{}, err
		}
	}
	// A size below the header (or negative) stays with head, where the
	// decoder reports it.
	it := record.NewLegacyIter(buf)
	if !it.Next() {
		err := it.Err()
		if err == nil {
			err = torn("message", size, rem)
		}
		return entry{}, atFile(err, pos)
	}
	m := it.Message()
	return entry{pos: pos, raw: it.Raw(), legacy: true, msg: m}, nil
}

// torn is the error for an entry that runs past the readable end: the
// tail a crash leaves, or the --max-bytes limit.
func torn[N int | int64](what string, size N, rem int64) error {
	return fmt.Errorf("dumplog: %s of %d bytes, only %d bytes left: %w", what, size, rem, record.ErrTruncated)
}

// atFile turns a record error's offset, counted from the entry, into a
// file position. Offsets inside decompressed bytes stay as they are (the
// error says "decompressed").
func atFile(err error, pos int64) error {
	var e *record.Error
	if !errors.As(err, &e) || e.Decompressed || e.Offset < 0 {
		return err
	}
	c := *e
	c.Offset += int(pos)
	return &c
}
