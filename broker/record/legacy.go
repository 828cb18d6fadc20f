package record

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// Legacy message sets (magic 0 and 1) are decoded, never written, so that
// dump-log-segments can read segments from before Kafka 0.11.

const (
	legacyOffCRC        = 12
	legacyOffAttributes = 17
	legacyOffTimestamp  = 18

	// The smallest message sizes (the int32 after the offset): crc,
	// magic, attributes, key length and value length, plus the
	// timestamp in magic 1.
	legacyMinSizeV0 = 14
	legacyMinSizeV1 = 22

	// NoTimestamp is the timestamp of a magic 0 message, which has none.
	NoTimestamp int64 = -1
)

// LegacyMessage is one message of a magic 0 or 1 message set. A compressed
// message is a wrapper whose Value holds an inner message set (see Inner).
type LegacyMessage struct {
	Offset     int64
	CRC        uint32 // as stored
	Magic      int8
	Attributes int8
	Timestamp  int64 // NoTimestamp for magic 0
	Key        []byte
	Value      []byte
	// Size is the whole message on disk, offset and size fields included.
	Size  int
	crcOK bool
}

// Codec is the message's compression codec (attribute bits 0-2).
func (m *LegacyMessage) Codec() Codec { return Codec(m.Attributes & AttrCompressionMask) }

// LogAppendTime reports attribute bit 3, which magic 1 uses for
// broker-assigned timestamps.
func (m *LegacyMessage) LogAppendTime() bool {
	return m.Magic > 0 && m.Attributes&AttrTimestampType != 0
}

// ValidCRC reports whether the stored CRC (CRC-32 IEEE of the bytes from
// the magic byte to the end of the message) matches the bytes.
func (m *LegacyMessage) ValidCRC() bool { return m.crcOK }

// parseLegacy decodes the message that is exactly b. It does not fail on a
// CRC mismatch; ValidCRC reports it, as dump-log-segments prints isvalid.
func parseLegacy(b []byte) (LegacyMessage, error) {
	var m LegacyMessage
	if len(b) <= offMagic {
		return m, truncatedf(len(b), "message", "need %d bytes, have %d", offMagic+1, len(b))
	}
	m.Offset = int64(binary.BigEndian.Uint64(b))
	size := int32(binary.BigEndian.Uint32(b[offBatchLength:]))
	m.Magic = int8(b[offMagic])
	minSize := int32(legacyMinSizeV0)
	switch m.Magic {
	case 0:
	case 1:
		minSize = legacyMinSizeV1
	default:
		e := corruptf(offMagic, "magic", "%d, want 0 or 1", m.Magic)
		if m.Magic == MagicV2 {
			e.Err = ErrOtherMagic
		}
		return m, e
	}
	if size < minSize {
		return m, corruptf(offBatchLength, "messageSize", "%d is below the magic %d minimum %d", size, m.Magic, minSize)
	}
	m.Size = LogOverhead + int(size)
	if len(b) < m.Size {
		return m, truncatedf(len(b), "messageSize", "message of %d bytes, only %d present", m.Size, len(b))
	}
	if len(b) > m.Size {
		return m, corruptf(m.Size, "messageSize", "message ends at byte %d but %d bytes were given", m.Size, len(b))
	}
	m.CRC = binary.BigEndian.Uint32(b[legacyOffCRC:])
	m.crcOK = crc32.ChecksumIEEE(b[offMagic:]) == m.CRC
	m.Attributes = int8(b[legacyOffAttributes])
	pos := legacyOffAttributes + 1
	m.Timestamp = NoTimestamp
	if m.Magic == 1 {
		m.Timestamp = int64(binary.BigEndian.Uint64(b[legacyOffTimestamp:]))
		pos += 8
	}
	var err error
	if m.Key, pos, err = legacyBytes(b, pos, "keyLength"); err != nil {
		return m, err
	}
	if m.Value, pos, err = legacyBytes(b, pos, "valueLength"); err != nil {
		return m, err
	}
	if pos != len(b) {
		return m, corruptf(pos, "messageSize", "%d bytes after the value", len(b)-pos)
	}
	return m, nil
}

// legacyBytes reads an int32 length and that many bytes, -1 meaning null.
func legacyBytes(b []byte, pos int, field string) ([]byte, int, error) {
	if len(b)-pos < 4 {
		return nil, pos, corruptf(pos, field, "need 4 bytes, %d remain in the message", len(b)-pos)
	}
	n := int32(binary.BigEndian.Uint32(b[pos:]))
	pos += 4
	if n == -1 {
		return nil, pos, nil
	}
	if n < -1 {
		return nil, pos - 4, corruptf(pos-4, field, "%d is negative", n)
	}
	if int(n) > len(b)-pos {
		return nil, pos - 4, corruptf(pos-4, field, "%d bytes but only %d remain in the message", n, len(b)-pos)
	}
	return b[pos : pos+int(n) : pos+int(n)], pos + int(n), nil
}

// Inner returns the messages a consumer sees for this message: itself when
// uncompressed, otherwise the decompressed inner message set (at most
// maxDecompressed bytes), with Kafka's rules applied. For magic 1 the
// inner offsets are relative: the wrapper carries the offset of the last
// inner message, so inner offset = wrapper offset - last inner offset +
// stored inner offset. Under LogAppendTime the inner messages take the
// wrapper's timestamp and timestamp-type bit. Inner messages must have the
// wrapper's magic and no compression of their own.
func (m *LegacyMessage) Inner(maxDecompressed int) ([]LegacyMessage, error) {
	if m.Codec() == CodecNone {
		return []LegacyMessage{*m}, nil
	}
	msgs, err := m.innerMessages(maxDecompressed)
	if err != nil {
		return nil, err
	}
	if m.Magic == 1 {
		base := m.Offset - msgs[len(msgs)-1].Offset
		if base < 0 {
			return nil, invalidf(0, "offset", "wrapper offset %d is below the last inner relative offset %d", m.Offset, msgs[len(msgs)-1].Offset)
		}
		for i := range msgs {
			msgs[i].Offset += base
			if m.LogAppendTime() {
				msgs[i].Timestamp = m.Timestamp
				msgs[i].Attributes |= AttrTimestampType
			}
		}
	}
	return msgs, nil
}

// innerMessages decompresses a wrapper's inner message set as stored, with
// the stored (for magic 1, relative) offsets: what a producer sent, before
// any broker assigned offsets.
func (m *LegacyMessage) innerMessages(maxDecompressed int) ([]LegacyMessage, error) {
	c := m.Codec()
	valueAt := m.Size - len(m.Value)
	if m.Value == nil {
		return nil, invalidf(m.Size-4, "valueLength", "compressed message has a null value")
	}
	if c > CodecLZ4 {
		return nil, corruptf(legacyOffAttributes, "attributes", "codec %v is not defined for magic %d", c, m.Magic)
	}
	set, err := decompress(c, m.Magic, nil, m.Value, maxDecompressed)
	if err != nil {
		return nil, &Error{Kind: KindCorrupt, Offset: valueAt, Field: "value", Detail: "decompressing " + c.String(), Err: err}
	}
	var msgs []LegacyMessage
	it := NewLegacyIter(set)
	for it.Next() {
		in := it.Message()
		fail := func(e *Error) error {
			e.Offset += it.Pos()
			e.Decompressed = true
			return e
		}
		if in.Magic != m.Magic {
			return nil, fail(invalidf(offMagic, "inner magic", "%d inside a magic %d wrapper", in.Magic, m.Magic))
		}
		if in.Codec() != CodecNone {
			return nil, fail(invalidf(legacyOffAttributes, "inner attributes", "nested compression (%v)", in.Codec()))
		}
		msgs = append(msgs, in)
	}
	if err := it.Err(); err != nil {
		var e *Error
		if errors.As(err, &e) {
			c := *e
			c.Decompressed = true
			err = &c
		}
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, invalidf(valueAt, "value", "compressed message holds no messages")
	}
	return msgs, nil
}

// LegacyIter walks a buffer of concatenated magic 0/1 messages, shallowly:
// a compressed wrapper is one entry, as in Kafka's dump of a legacy log.
// It stops at a message that is torn or malformed, and at a v2 batch with
// an error wrapping ErrOtherMagic, so a reader of a mixed file can continue
// with a BatchIter at Pos.
type LegacyIter struct {
	buf []byte
	pos int
	end int
	msg LegacyMessage
	err error
}

// NewLegacyIter iterates over b, which must start at a message boundary.
func NewLegacyIter(b []byte) *LegacyIter { return &LegacyIter{buf: b} }

// Next advances to the next message; see BatchIter.Next.
func (it *LegacyIter) Next() bool {
	if it.err != nil {
		return false
	}
	it.pos = it.end
	rest := it.buf[it.pos:]
	if len(rest) == 0 {
		return false
	}
	// Hand parseLegacy exactly the message when its size field fits the
	// buffer, and all of it otherwise, so that it reports the tear.
	n := len(rest)
	if n >= LogOverhead {
		if size := int(int32(binary.BigEndian.Uint32(rest[offBatchLength:]))); size >= 0 && LogOverhead+size < n {
			n = LogOverhead + size
		}
	}
	m, err := parseLegacy(rest[:n])
	if err != nil {
		it.err = shifted(err, it.pos)
		return false
	}
	it.msg = m
	it.end = it.pos + m.Size
	return true
}

// Message is the current message; Key and Value alias the buffer.
func (it *LegacyIter) Message() LegacyMessage { return it.msg }

// Raw is the current message's bytes.
func (it *LegacyIter) Raw() []byte { return it.buf[it.pos:it.end:it.end] }

// Pos is the byte position of the current (or failing) message.
func (it *LegacyIter) Pos() int { return it.pos }

// Err is the error that stopped the iteration; nil at a clean end.
func (it *LegacyIter) Err() error { return it.err }
