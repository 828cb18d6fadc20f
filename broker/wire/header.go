package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
)

// Sentinel errors; the returned errors wrap them with details.
var (
	ErrFrameTooLarge   = kafkaerr.Sentinel(kerr.UnknownServerError, "wire: frame too large")
	ErrFrameTooSmall   = kafkaerr.Sentinel(kerr.UnknownServerError, "wire: frame too small")
	ErrTruncated       = kafkaerr.Sentinel(kerr.UnknownServerError, "wire: truncated frame")
	ErrMalformedHeader = kafkaerr.Sentinel(kerr.UnknownServerError, "wire: malformed header")
)

const (
	// MinFrameSize is the smallest request frame body: a v0 header.
	MinFrameSize = 8
	// apiVersionsKey's response header is always v0 (KIP-511).
	apiVersionsKey = 18
	// controlledShutdownKey v0 is the one request with header v0 (no client id).
	controlledShutdownKey = 7
	// flexProbeKeys bounds the keys probed in kmsg at init; Kafka's keys are
	// far below it, and any key beyond is unknown, hence non-flexible.
	flexProbeKeys = 1024
)

// flexibleFrom[k] is the first version of key k with a flexible (v2) request
// header, or -1 when kmsg knows no flexible version of k. Built once so the
// per-request check neither allocates nor switches over every key.
var flexibleFrom = buildFlexibleTable()

func buildFlexibleTable() []int16 {
	var table []int16
	for k := 0; k < flexProbeKeys; k++ {
		from := int16(-1)
		if r := kmsg.RequestForKey(int16(k)); r != nil {
			for v := int16(0); v <= r.MaxVersion(); v++ {
				r.SetVersion(v)
				if r.IsFlexible() {
					from = v
					break
				}
			}
		}
		table = append(table, from)
	}
	for len(table) > 0 && table[len(table)-1] < 0 {
		table = table[:len(table)-1]
	}
	return table
}

// RequestFlexible reports whether (key, version) uses the flexible request
// header v2. Flexibility is monotonic in the version, so versions newer than
// kmsg knows are flexible when kmsg's newest is; unknown keys and negative
// versions are not.
func RequestFlexible(key, version int16) bool {
	if key < 0 || int(key) >= len(flexibleFrom) || version < 0 {
		return false
	}
	from := flexibleFrom[key]
	return from >= 0 && version >= from
}

// ResponseFlexible reports whether the response to a request with the given
// key and header flexibility carries a tagged-field section (header v1).
func ResponseFlexible(key int16, requestFlexible bool) bool {
	return requestFlexible && key != apiVersionsKey
}

// ParseRequestHeader parses the request header at the start of frame (the
// frame body, without its size) and returns it with the rest of the frame,
// which is the request body.
func ParseRequestHeader(frame []byte) (RequestHeader, []byte, error) {
	return parseRequestHeader(frame, nil)
}

// parseRequestHeader is ParseRequestHeader with a cache: when the client id
// equals *prev, prev is reused instead of allocating a new string (clients
// send the same id on every request).
func parseRequestHeader(frame []byte, prev *string) (RequestHeader, []byte, error) {
	var h RequestHeader
	if len(frame) < MinFrameSize {
		return h, nil, fmt.Errorf("%w: %d bytes, a header needs at least %d", ErrMalformedHeader, len(frame), MinFrameSize)
	}
	h.APIKey = int16(binary.BigEndian.Uint16(frame[0:]))
	h.APIVersion = int16(binary.BigEndian.Uint16(frame[2:]))
	h.CorrelationID = int32(binary.BigEndian.Uint32(frame[4:]))
	rest := frame[8:]
	if h.APIKey == controlledShutdownKey && h.APIVersion == 0 {
		return h, rest, nil
	}
	if len(rest) < 2 {
		return h, nil, fmt.Errorf("%w: client id length missing (key %d v%d)", ErrMalformedHeader, h.APIKey, h.APIVersion)
	}
	n := int(int16(binary.BigEndian.Uint16(rest)))
	rest = rest[2:]
	switch {
	case n == -1:
	case n < 0:
		return h, nil, fmt.Errorf("%w: client id length %d", ErrMalformedHeader, n)
	case n > len(rest):
		return h, nil, fmt.Errorf("%w: client id length %d, %d bytes left", ErrMalformedHeader, n, len(rest))
	default:
		if prev != nil && *prev == string(rest[:n]) {
			h.ClientID = prev
		} else {
			s := string(rest[:n])
			h.ClientID = &s
		}
		rest = rest[n:]
	}
	h.Flexible = RequestFlexible(h.APIKey, h.APIVersion)
	if h.Flexible {
		var err error
		if rest, err = skipTaggedFields(rest); err != nil {
			return h, nil, fmt.Errorf("%w: key %d v%d: %w", ErrMalformedHeader, h.APIKey, h.APIVersion, err)
		}
	}
	return h, rest, nil
}

// skipTaggedFields skips a tagged-field section and returns what follows.
func skipTaggedFields(b []byte) ([]byte, error) {
	count, b, err := readUvarint(b)
	if err != nil {
		return nil, fmt.Errorf("tag count: %w", err)
	}
	// Each field takes at least two bytes (tag, size); checking this first
	// bounds the loop by the input, not by a hostile count.
	if uint64(count)*2 > uint64(len(b)) {
		return nil, fmt.Errorf("%d tagged fields in %d bytes", count, len(b))
	}
	for i := uint32(0); i < count; i++ {
		var size uint32
		if _, b, err = readUvarint(b); err != nil {
			return nil, fmt.Errorf("tag %d: %w", i, err)
		}
		if size, b, err = readUvarint(b); err != nil {
			return nil, fmt.Errorf("tag %d size: %w", i, err)
		}
		if uint64(size) > uint64(len(b)) {
			return nil, fmt.Errorf("tag %d size %d, %d bytes left", i, size, len(b))
		}
		b = b[size:]
	}
	return b, nil
}

var (
	errVarintShort    = errors.New("truncated uvarint")
	errVarintOverflow = errors.New("uvarint overflows 32 bits")
)

// readUvarint reads an unsigned varint of at most 5 bytes (a uint32), as
// Kafka's ByteUtils.readUnsignedVarint does.
func readUvarint(b []byte) (uint32, []byte, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, nil, errVarintShort
		}
		c := b[i]
		if i == 4 && c > 0x0f {
			return 0, nil, errVarintOverflow
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errVarintOverflow
}

// appendResponseHeader appends the frame size and response header for a body
// of bodyLen bytes. The caller has checked that the total fits an int32.
func appendResponseHeader(dst []byte, corr int32, flexible bool, bodyLen int64) []byte {
	hdr := int64(4)
	if flexible {
		hdr++
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(hdr+bodyLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	if flexible {
		dst = append(dst, 0) // empty tagged-field section
	}
	return dst
}
