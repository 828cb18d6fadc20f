package record

import "fmt"

// Codec is a batch compression codec, the low three attribute bits.
type Codec int8

// The codecs Kafka defines.
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4
)

// String is the lower-case name Kafka's tools print (compresscodec: ...).
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", int8(c))
}

// ParseCodec maps a Kafka compression.type name to a codec.
func ParseCodec(name string) (Codec, error) {
	switch name {
	case "none", "":
		return CodecNone, nil
	case "gzip":
		return CodecGzip, nil
	case "snappy":
		return CodecSnappy, nil
	case "lz4":
		return CodecLZ4, nil
	case "zstd":
		return CodecZstd, nil
	}
	return CodecNone, fmt.Errorf("record: unknown compression codec %q", name)
}
