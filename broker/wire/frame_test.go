package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

func sizePrefix(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func TestReadRequestFrames(t *testing.T) {
	valid := rawRequest(3, 1, 9, []byte{0xff, 0xff, 1, 2, 3})
	tests := []struct {
		name    string
		in      []byte
		max     int32
		wantErr error // nil: success
	}{
		{name: "valid", in: valid},
		{name: "empty input is a clean EOF", in: nil, wantErr: io.EOF},
		{name: "size cut short", in: []byte{0, 0}, wantErr: ErrTruncated},
		{name: "zero size", in: sizePrefix(0), wantErr: ErrFrameTooSmall},
		{name: "below header size", in: append(sizePrefix(7), make([]byte, 7)...), wantErr: ErrFrameTooSmall},
		{name: "negative size", in: sizePrefix(-1), wantErr: ErrFrameTooSmall},
		{name: "most negative size", in: sizePrefix(-1 << 31), wantErr: ErrFrameTooSmall},
		{name: "over max", in: sizePrefix(1<<20 + 1), max: 1 << 20, wantErr: ErrFrameTooLarge},
		{name: "2 GiB", in: sizePrefix(1<<31 - 1), wantErr: ErrFrameTooLarge},
		{name: "body cut short", in: valid[:len(valid)-1], wantErr: ErrTruncated},
		{name: "large body cut short", in: append(sizePrefix(1<<20), make([]byte, 200<<10)...), wantErr: ErrTruncated},
		{name: "bad header", in: rawRequest(3, 1, 9, []byte{0, 9}), wantErr: ErrMalformedHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ReadRequest(bytes.NewReader(tt.in), tt.max)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if req.Header.APIKey != 3 || req.Header.CorrelationID != 9 || !bytes.Equal(req.Body, []byte{1, 2, 3}) {
					t.Fatalf("parsed %+v body %x", req.Header, req.Body)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestReadLargeBodyExact checks bodies above the one-shot size grow to
// exactly the frame length and arrive intact.
func TestReadLargeBodyExact(t *testing.T) {
	for _, n := range []int{exactReadMax - 1, exactReadMax, exactReadMax + 1, 3*exactReadMax + 17, 1 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		in := append(sizePrefix(int32(n)), data...)
		got, err := readFrame(bytes.NewReader(in), new([4]byte), 1, 1<<30)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(got) != n || cap(got) != n || !bytes.Equal(got, data) {
			t.Fatalf("n=%d: got len %d cap %d, equal %v", n, len(got), cap(got), bytes.Equal(got, data))
		}
	}
}

// TestAnnouncedSizeDoesNotAllocate: memory follows the bytes that arrive, not
// the size a peer announces.
func TestAnnouncedSizeDoesNotAllocate(t *testing.T) {
	in := append(sizePrefix(DefaultMaxRequestSize), make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readFrame(bytes.NewReader(in), new([4]byte), MinFrameSize, DefaultMaxRequestSize)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes for a 1000-byte truncated frame", d)
	}
}
