package record

import "encoding/binary"

// Kafka's varint and varlong are protobuf zigzag varints, which is exactly
// what encoding/binary's signed Varint functions implement; only the
// decoders are hand-written, to cap a varint at 5 bytes and a varlong at 10
// the way Kafka's ByteUtils does and to reject values that overflow.

// Results of the readers besides a positive byte count.
const (
	varShort    = 0  // input ended inside the varint
	varOverflow = -1 // too many bytes, or a value beyond the type
)

func appendVarint(dst []byte, v int32) []byte  { return binary.AppendVarint(dst, int64(v)) }
func appendVarlong(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// sizeVarlong is the encoded size of v; it serves varints too, because a
// sign-extended int32 has the same zigzag value.
func sizeVarlong(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// readVarint decodes a zigzag int32 from the start of b and returns the
// value and the bytes used, or varShort / varOverflow.
func readVarint(b []byte) (int32, int) {
	var u uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, varShort
		}
		c := b[i]
		if i == 4 && c > 0x0f {
			return 0, varOverflow
		}
		u |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1
		}
	}
	return 0, varOverflow
}

// readVarlong is readVarint for zigzag int64 (at most 10 bytes).
func readVarlong(b []byte) (int64, int) {
	var u uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, varShort
		}
		c := b[i]
		if i == 9 && c > 0x01 {
			return 0, varOverflow
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, varOverflow
}
