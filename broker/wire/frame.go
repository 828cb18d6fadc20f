package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

const (
	// DefaultMaxRequestSize is Kafka's socket.request.max.bytes default.
	DefaultMaxRequestSize = 100 << 20
	// exactReadMax: bodies up to this size are allocated in one go; larger
	// ones grow as bytes arrive, so memory follows what the peer really sent.
	exactReadMax = 64 << 10
)

// ReadRequest reads one request frame from r (at most maxSize bytes after the
// size field; <= 0 means DefaultMaxRequestSize) and parses its header. At a
// clean frame boundary it returns io.EOF; every other failure wraps
// ErrFrameTooLarge, ErrFrameTooSmall, ErrTruncated or ErrMalformedHeader (or
// the reader's own error). Request.Conn is nil.
func ReadRequest(r io.Reader, maxSize int32) (*Request, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxRequestSize
	}
	var sizeBuf [4]byte
	frame, err := readFrame(r, &sizeBuf, MinFrameSize, maxSize)
	if err != nil {
		return nil, err
	}
	hdr, body, err := ParseRequestHeader(frame)
	if err != nil {
		return nil, err
	}
	return &Request{Header: hdr, Body: body, Received: time.Now(), frame: frame}, nil
}

// readFrame reads a size-prefixed frame, rejecting sizes outside [minSize,
// maxSize] before allocating anything. sizeBuf is caller-owned scratch so the
// server's per-request read does not allocate for the size.
func readFrame(r io.Reader, sizeBuf *[4]byte, minSize, maxSize int32) ([]byte, error) {
	if _, err := io.ReadFull(r, sizeBuf[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: size field cut short", ErrTruncated)
		}
		return nil, err // io.EOF at a frame boundary passes through unwrapped
	}
	size := int32(binary.BigEndian.Uint32(sizeBuf[:]))
	if size > maxSize {
		return nil, fmt.Errorf("%w: size %d over limit %d", ErrFrameTooLarge, size, maxSize)
	}
	if size < minSize {
		return nil, fmt.Errorf("%w: size %d under minimum %d", ErrFrameTooSmall, size, minSize)
	}
	return readBody(r, int(size))
}

// readBody reads exactly size bytes into a buffer of that length: a pooled
// one for sizes in the pooled range (see bodypool.go), else one of exactly
// that capacity.
func readBody(r io.Reader, size int) ([]byte, error) {
	if buf, ok := getBody(size); ok {
		if n, err := io.ReadFull(r, buf); err != nil {
			putBody(buf)
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: got %d of %d body bytes", ErrTruncated, n, size)
			}
			return nil, err
		}
		return buf, nil
	}
	buf := make([]byte, min(size, exactReadMax))
	have := 0
	for {
		n, err := io.ReadFull(r, buf[have:])
		have += n
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: got %d of %d body bytes", ErrTruncated, have, size)
			}
			return nil, err
		}
		if have == size {
			return buf, nil
		}
		// Doubling keeps the total copying under size bytes; capping at size
		// makes the final buffer exact.
		grown := make([]byte, min(size, 2*len(buf)))
		copy(grown, buf)
		buf = grown
	}
}
