package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const fuzzMaxSize = 1 << 20

// FuzzReadRequest feeds arbitrary bytes to the frame reader and header
// parser: no panic, errors for anything malformed, and a consistent split of
// the frame when it succeeds.
func FuzzReadRequest(f *testing.F) {
	id := kmsg.StringPtr("fuzz")
	f.Add(encodeRequest(apiVersionsRequest(0), 1, id))
	f.Add(encodeRequest(apiVersionsRequest(3), 2, id))
	f.Add(encodeRequest(metadataRequest(1, "a"), 3, nil))
	f.Add(encodeRequest(metadataRequest(9, "a", "b"), 4, id))
	f.Add(rawRequest(7, 0, 5, []byte{0, 0, 0, 1}))
	f.Add(rawRequest(3, 9, 6, []byte{0, 1, 'c', 2, 0, 1, 'x', 1, 0}))
	f.Add(sizePrefix(1<<31 - 1))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		req, err := ReadRequest(r, fuzzMaxSize)
		if len(data) < 4 {
			if err == nil {
				t.Fatal("frame without a size accepted")
			}
			return
		}
		size := int64(int32(binary.BigEndian.Uint32(data)))
		switch {
		case size < MinFrameSize || size > fuzzMaxSize:
			if err == nil {
				t.Fatalf("size %d accepted", size)
			}
			return
		case size > int64(len(data)-4):
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("truncated frame: err = %v", err)
			}
			return
		}
		if err != nil {
			if !errors.Is(err, ErrMalformedHeader) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		frame := data[4 : 4+size]
		h := req.Header
		if h.APIKey != int16(binary.BigEndian.Uint16(frame)) || h.CorrelationID != int32(binary.BigEndian.Uint32(frame[4:])) {
			t.Fatalf("header %+v does not match frame", h)
		}
		// The body is the frame's tail, and the header part before it holds
		// at least the fixed fields plus the client id.
		hdrLen := len(frame) - len(req.Body)
		if !bytes.Equal(frame[hdrLen:], req.Body) || hdrLen < MinFrameSize {
			t.Fatalf("body is not the frame's tail (header %d bytes)", hdrLen)
		}
		if h.ClientID != nil && hdrLen < MinFrameSize+2+len(*h.ClientID) {
			t.Fatalf("header of %d bytes cannot hold client id %q", hdrLen, *h.ClientID)
		}
		if h.Flexible != RequestFlexible(h.APIKey, h.APIVersion) {
			t.Fatal("Flexible disagrees with RequestFlexible")
		}
		// Exactly one frame is consumed: the next one is left for the next read.
		if r.Len() != len(data)-4-int(size) {
			t.Fatalf("%d bytes left unread, want %d", r.Len(), len(data)-4-int(size))
		}
	})
}
