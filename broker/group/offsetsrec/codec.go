package offsetsrec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// ErrMalformed reports bytes that are not a record of the schema they claim.
var ErrMalformed = kafkaerr.Sentinel(kerr.UnknownServerError, "offsetsrec: malformed record")

// ErrUnknownVersion reports a schema version this package does not know.
var ErrUnknownVersion = kafkaerr.Sentinel(kerr.UnknownServerError, "offsetsrec: unknown schema version")

// reader consumes big-endian fields from b, remembering the first error, so
// decoders read straight through and check once at the end.
type reader struct {
	b    []byte
	off  int
	err  error
	what string // the record being decoded, for error messages
}

func (r *reader) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s: %s at byte %d: %s", ErrMalformed, r.what, field, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) need(field string, n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail(field, "needs %d bytes, %d remain", n, len(r.b)-r.off)
		return false
	}
	return true
}

func (r *reader) int16(field string) int16 {
	if !r.need(field, 2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(r.b[r.off:]))
	r.off += 2
	return v
}

func (r *reader) int32(field string) int32 {
	if !r.need(field, 4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.off:]))
	r.off += 4
	return v
}

func (r *reader) int64(field string) int64 {
	if !r.need(field, 8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b[r.off:]))
	r.off += 8
	return v
}

// nullableString reads an int16-length string; -1 is null.
func (r *reader) nullableString(field string) *string {
	n := r.int16(field)
	if r.err != nil {
		return nil
	}
	if n == -1 {
		return nil
	}
	if n < 0 {
		r.fail(field, "negative length %d", n)
		return nil
	}
	if !r.need(field, int(n)) {
		return nil
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	return &s
}

func (r *reader) string(field string) string {
	start := r.off
	s := r.nullableString(field)
	if s == nil && r.err == nil {
		r.off = start
		r.fail(field, "null in a non-nullable string")
	}
	if s == nil {
		return ""
	}
	return *s
}

// bytes reads int32-length bytes, copied so the result does not alias the
// log buffer. The schemas' BYTES are not nullable, so -1 is malformed.
func (r *reader) bytes(field string) []byte {
	n := r.int32(field)
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.fail(field, "negative length %d", n)
		return nil
	}
	if !r.need(field, int(n)) {
		return nil
	}
	out := make([]byte, n)
	copy(out, r.b[r.off:])
	r.off += int(n)
	return out
}

// arrayLen reads an array count and checks that count elements of at least
// minSize bytes each fit in what remains, before anyone allocates them.
func (r *reader) arrayLen(field string, minSize int) int {
	n := r.int32(field)
	if r.err != nil {
		return 0
	}
	if n < 0 {
		r.fail(field, "negative count %d", n)
		return 0
	}
	if int64(n)*int64(minSize) > int64(len(r.b)-r.off) {
		r.fail(field, "%d elements of at least %d bytes do not fit in %d bytes", n, minSize, len(r.b)-r.off)
		return 0
	}
	return int(n)
}

// done reports the first error, or trailing bytes.
func (r *reader) done() error {
	if r.err == nil && r.off != len(r.b) {
		r.fail("end", "%d unexpected trailing bytes", len(r.b)-r.off)
	}
	return r.err
}

func appendInt16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func appendInt32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func appendInt64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// writer appends fields, remembering the first value that does not fit its
// length prefix.
type writer struct {
	b   []byte
	err error
}

func (w *writer) string(field, s string) {
	if len(s) > math.MaxInt16 {
		if w.err == nil {
			w.err = fmt.Errorf("offsetsrec: %s of %d bytes exceeds the int16 length limit", field, len(s))
		}
		return
	}
	w.b = appendInt16(w.b, int16(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) nullableString(field string, s *string) {
	if s == nil {
		w.b = appendInt16(w.b, -1)
		return
	}
	w.string(field, *s)
}

func (w *writer) bytes(field string, v []byte) {
	if int64(len(v)) > math.MaxInt32 {
		if w.err == nil {
			w.err = fmt.Errorf("offsetsrec: %s of %d bytes exceeds the int32 length limit", field, len(v))
		}
		return
	}
	w.b = appendInt32(w.b, int32(len(v)))
	w.b = append(w.b, v...)
}
