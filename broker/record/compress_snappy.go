package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
)

// Kafka's snappy is snappy-java's SnappyOutputStream framing ("xerial"):
// a 16-byte header (magic, version, minimum compatible version) and then
// [int32 BE length][raw snappy block] chunks. franz-go also sends a bare raw
// block, and snappy-java's reader falls back to raw when the magic is
// absent, so the decoder does the same.

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderSize = 16
	// xerialBlockSize is the chunk size snappy-java uses in Kafka.
	xerialBlockSize = 32 << 10
)

var errSnappyCorrupt = errors.New("snappy: corrupt input")

func unsnappy(dst, src []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return snappyBlock(dst, src, limit, 0)
	}
	if len(src) < xerialHeaderSize {
		return dst, fmt.Errorf("snappy: xerial header needs %d bytes, have %d", xerialHeaderSize, len(src))
	}
	start := len(dst)
	for pos := xerialHeaderSize; pos < len(src); {
		if len(src)-pos < 4 {
			return dst[:start], fmt.Errorf("snappy: xerial chunk length at byte %d: %d bytes left, need 4", pos, len(src)-pos)
		}
		n := int32(binary.BigEndian.Uint32(src[pos:]))
		pos += 4
		if n < 0 || int(n) > len(src)-pos {
			return dst[:start], fmt.Errorf("snappy: xerial chunk at byte %d: length %d but %d bytes left", pos-4, n, len(src)-pos)
		}
		var err error
		if dst, err = snappyBlock(dst, src[pos:pos+int(n)], limit-(len(dst)-start), pos); err != nil {
			return dst[:start], err
		}
		pos += int(n)
	}
	return dst, nil
}

// snappyBlock appends one raw snappy block, checking the length it declares
// against limit before allocating. at locates the block in the compressed
// input for error messages. Decoding is strict snappy: s2's extensions
// would decode here but not in Java consumers.
func snappyBlock(dst, block []byte, limit, at int) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return dst, fmt.Errorf("snappy: block at byte %d: %w", at, errSnappyCorrupt)
	}
	if n > limit {
		return dst, fmt.Errorf("%w: snappy block at byte %d declares %d bytes, %d allowed", ErrTooLarge, at, n, limit)
	}
	dst = slices.Grow(dst, n)
	out, err := snappy.DecodeStrict(dst[len(dst):len(dst)+n], block)
	if err != nil || len(out) != n {
		return dst, fmt.Errorf("snappy: block at byte %d: %w", at, errSnappyCorrupt)
	}
	return dst[:len(dst)+n], nil
}

// xerialAppend appends src in xerial framing, as the Java producer writes.
func xerialAppend(dst, src []byte) []byte {
	dst = append(dst, xerialMagic...)
	dst = binary.BigEndian.AppendUint32(dst, 1) // version
	dst = binary.BigEndian.AppendUint32(dst, 1) // minimum compatible version
	for len(src) > 0 {
		chunk := src[:min(len(src), xerialBlockSize)]
		src = src[len(chunk):]
		dst = slices.Grow(dst, 4+s2.MaxEncodedLen(len(chunk)))
		at := len(dst)
		// EncodeSnappy writes plain snappy (no s2 extensions) in place
		// when given room, right after the 4 bytes kept for the length.
		block := s2.EncodeSnappy(dst[at+4:cap(dst)], chunk)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(block)))
		dst = dst[:at+4+len(block)]
	}
	return dst
}
