package record

import (
	"encoding/binary"
	"math/bits"
)

// Kafka 0.8 and 0.9 wrote the LZ4 frame descriptor checksum (HC) over the
// 4-byte frame magic as well as the descriptor, against the LZ4 frame spec.
// KIP-57 fixed it for magic 1 and kept the broken form for magic 0, whose
// reader skips the check. pierrec/lz4 always checks it, so for magic 0 the
// byte is recomputed before decoding when it matches the broken form.

var lz4FrameMagic = []byte{0x04, 0x22, 0x4d, 0x18}

// fixKafkaLZ4Header returns a copy of the frame header up to and including
// a corrected HC byte and the rest of src, or ok false when src does not
// carry the broken checksum.
func fixKafkaLZ4Header(src []byte) (header, rest []byte, ok bool) {
	if len(src) < 7 || string(src[:4]) != string(lz4FrameMagic) {
		return nil, nil, false
	}
	flg := src[4]
	hc := 6 // FLG and BD
	if flg&0x08 != 0 {
		hc += 8 // content size
	}
	if flg&0x01 != 0 {
		hc += 4 // dictionary id
	}
	if len(src) <= hc {
		return nil, nil, false
	}
	good := byte(xxh32(src[4:hc], 0) >> 8)
	broken := byte(xxh32(src[:hc], 0) >> 8)
	if src[hc] != broken || broken == good {
		return nil, nil, false
	}
	header = append([]byte(nil), src[:hc+1]...)
	header[hc] = good
	return header, src[hc+1:], true
}

const (
	xxPrime1 uint32 = 2654435761
	xxPrime2 uint32 = 2246822519
	xxPrime3 uint32 = 3266489917
	xxPrime4 uint32 = 668265263
	xxPrime5 uint32 = 374761393
)

func xxRound(acc, in uint32) uint32 {
	return bits.RotateLeft32(acc+in*xxPrime2, 13) * xxPrime1
}

// xxh32 is XXH32 as the LZ4 frame format uses it; pierrec/lz4 keeps its
// implementation internal.
func xxh32(b []byte, seed uint32) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		v1 := seed + xxPrime1 + xxPrime2
		v2 := seed + xxPrime2
		v3 := seed
		v4 := seed - xxPrime1
		for ; len(b) >= 16; b = b[16:] {
			v1 = xxRound(v1, binary.LittleEndian.Uint32(b[0:]))
			v2 = xxRound(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint32(b[12:]))
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + xxPrime5
	}
	h += uint32(n)
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * xxPrime3
		h = bits.RotateLeft32(h, 17) * xxPrime4
	}
	for _, c := range b {
		h += uint32(c) * xxPrime5
		h = bits.RotateLeft32(h, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	h ^= h >> 16
	return h
}
