package record

import "fmt"

// Header is a record header. Key is never null on the wire; a nil Value is
// a null value, distinct from an empty one.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record of a v2 batch, with the offset and timestamp kept as
// deltas from the batch header (see BatchHeader.OffsetOf and TimestampOf).
// A nil Key or Value is null (a nil Value is a tombstone); a non-nil empty
// slice is an empty key or value.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	Headers        []Header
}

// The smallest encodings, used to bound counts read from the wire before
// allocating for them: a record is at least seven one-byte fields (length,
// attributes, timestampDelta, offsetDelta, keyLength, valueLength,
// headerCount), a header at least two (keyLength, valueLength).
const (
	minRecordSize = 7
	minHeaderSize = 2
)

// sizeBytes is the encoded size of a varint-length-prefixed nullable field.
func sizeBytes(b []byte) int {
	if b == nil {
		return 1 // varint -1
	}
	return sizeVarlong(int64(len(b))) + len(b)
}

// bodySize is the size of everything after the record's length varint.
func (r *Record) bodySize() int {
	n := 1 + sizeVarlong(r.TimestampDelta) + sizeVarlong(int64(r.OffsetDelta)) +
		sizeBytes(r.Key) + sizeBytes(r.Value) + sizeVarlong(int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		n += sizeVarlong(int64(len(h.Key))) + len(h.Key) + sizeBytes(h.Value)
	}
	return n
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return appendVarint(dst, -1)
	}
	return append(appendVarint(dst, int32(len(b))), b...)
}

// appendRecord appends r in wire form. Lengths are not checked here: the
// batch encoder checks the total against the int32 batch length, which
// bounds every field.
func appendRecord(dst []byte, r *Record) []byte {
	dst = appendVarint(dst, int32(r.bodySize()))
	dst = append(dst, byte(r.Attributes))
	dst = appendVarlong(dst, r.TimestampDelta)
	dst = appendVarint(dst, r.OffsetDelta)
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	dst = appendVarint(dst, int32(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = appendVarint(dst, int32(len(h.Key)))
		dst = append(dst, h.Key...)
		dst = appendBytes(dst, h.Value)
	}
	return dst
}

// recDecoder decodes records from a records section. base is where the
// section starts in the batch, so error offsets are batch offsets.
type recDecoder struct {
	b            []byte
	base         int
	decompressed bool
}

// mark flags e as located in decompressed bytes when the section was.
func (d *recDecoder) mark(e *Error) *Error {
	e.Decompressed = d.decompressed
	return e
}

func (d *recDecoder) fail(pos, idx int, field, format string, args ...any) *Error {
	return d.mark(corruptf(d.base+pos, fmt.Sprintf("record %d %s", idx, field), format, args...))
}

func (d *recDecoder) varErr(pos, idx int, field string, n int) *Error {
	if n == varShort {
		return d.fail(pos, idx, field, "varint runs past the end of the record")
	}
	return d.fail(pos, idx, field, "varint is too long or overflows")
}

// bytesField reads a varint length and that many bytes, -1 meaning null,
// from rb (the record's bytes, ending where the record ends). The result
// has its capacity clipped so a caller's append cannot overwrite the next
// field.
func (d *recDecoder) bytesField(rb []byte, pos, idx int, field string) ([]byte, int, error) {
	l, n := readVarint(rb[pos:])
	if n <= 0 {
		return nil, pos, d.varErr(pos, idx, field, n)
	}
	if l == -1 {
		return nil, pos + n, nil
	}
	if l < -1 {
		return nil, pos, d.fail(pos, idx, field, "%d is negative", l)
	}
	start := pos + n
	if int(l) > len(rb)-start {
		return nil, pos, d.fail(pos, idx, field, "%d bytes but only %d remain in the record", l, len(rb)-start)
	}
	end := start + int(l)
	return rb[start:end:end], end, nil
}

// record decodes the record at d.b[pos:] into r and returns the position
// after it. Headers are appended to hdrs[:0] (nil allocates) and returned
// for reuse; with keep false they are checked but not kept, for callers
// that only walk records.
func (d *recDecoder) record(pos, idx int, r *Record, hdrs []Header, keep bool) (int, []Header, error) {
	b := d.b
	length, n := readVarint(b[pos:])
	if n <= 0 {
		if n == varShort {
			return pos, hdrs, d.fail(pos, idx, "length", "varint runs past the end of the records")
		}
		return pos, hdrs, d.varErr(pos, idx, "length", n)
	}
	if length < 0 {
		return pos, hdrs, d.fail(pos, idx, "length", "%d is negative", length)
	}
	pos += n
	if int(length) > len(b)-pos {
		return pos, hdrs, d.fail(pos-n, idx, "length", "%d bytes but only %d remain in the records", length, len(b)-pos)
	}
	end := pos + int(length)
	rb := b[:end]

	if pos >= end {
		return pos, hdrs, d.fail(pos, idx, "attributes", "past the end of the record")
	}
	r.Attributes = int8(rb[pos])
	pos++
	if r.TimestampDelta, n = readVarlong(rb[pos:]); n <= 0 {
		return pos, hdrs, d.varErr(pos, idx, "timestampDelta", n)
	}
	pos += n
	if r.OffsetDelta, n = readVarint(rb[pos:]); n <= 0 {
		return pos, hdrs, d.varErr(pos, idx, "offsetDelta", n)
	}
	pos += n
	var err error
	if r.Key, pos, err = d.bytesField(rb, pos, idx, "keyLength"); err != nil {
		return pos, hdrs, err
	}
	if r.Value, pos, err = d.bytesField(rb, pos, idx, "valueLength"); err != nil {
		return pos, hdrs, err
	}
	count, n := readVarint(rb[pos:])
	if n <= 0 {
		return pos, hdrs, d.varErr(pos, idx, "headerCount", n)
	}
	if count < 0 {
		return pos, hdrs, d.fail(pos, idx, "headerCount", "%d is negative", count)
	}
	if int(count) > (end-pos-n)/minHeaderSize {
		return pos, hdrs, d.fail(pos, idx, "headerCount", "%d headers cannot fit in the %d bytes left in the record", count, end-pos-n)
	}
	pos += n
	if hdrs == nil && keep && count > 0 {
		hdrs = make([]Header, 0, count)
	}
	hdrs = hdrs[:0]
	for h := 0; h < int(count); h++ {
		field := func(s string) string { return fmt.Sprintf("header %d %s", h, s) }
		kl, n := readVarint(rb[pos:])
		if n <= 0 {
			return pos, hdrs, d.varErr(pos, idx, field("keyLength"), n)
		}
		if kl < 0 {
			return pos, hdrs, d.fail(pos, idx, field("keyLength"), "%d: header keys are not nullable", kl)
		}
		pos += n
		if int(kl) > end-pos {
			return pos, hdrs, d.fail(pos-n, idx, field("keyLength"), "%d bytes but only %d remain in the record", kl, end-pos)
		}
		key := rb[pos : pos+int(kl)]
		pos += int(kl)
		var val []byte
		if val, pos, err = d.bytesField(rb, pos, idx, field("valueLength")); err != nil {
			return pos, hdrs, err
		}
		if keep {
			hdrs = append(hdrs, Header{Key: string(key), Value: val})
		}
	}
	if pos != end {
		return pos, hdrs, d.fail(pos, idx, "length", "record declares %d bytes but its fields end %d bytes early", length, end-pos)
	}
	if keep && count > 0 {
		r.Headers = hdrs
	} else {
		r.Headers = nil
	}
	return end, hdrs, nil
}
