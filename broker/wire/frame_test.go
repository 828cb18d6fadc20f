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

// TestReadLargeBodyExact checks bodies of every size arrive intact with
// exactly the frame length: in the pooled range in a buffer of their size
// class, above it grown to exactly the frame length.
func TestReadLargeBodyExact(t *testing.T) {
	for _, n := range []int{minPooledBody - 1, minPooledBody, exactReadMax - 1, exactReadMax, exactReadMax + 1, 3*exactReadMax + 17, maxPooledBody, maxPooledBody + 1, 3 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		in := append(sizePrefix(int32(n)), data...)
		got, err := readFrame(bytes.NewReader(in), new([4]byte), 1, 1<<30)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		wantCap := n
		if c, ok := bodyClass(n); ok {
			wantCap = minPooledBody << c
		}
		if len(got) != n || cap(got) != wantCap || !bytes.Equal(got, data) {
			t.Fatalf("n=%d: got len %d cap %d (want %d), equal %v", n, len(got), cap(got), wantCap, bytes.Equal(got, data))
		}
	}
}

// TestBodyClasses: each pooled size maps to the smallest power-of-two
// class holding it, and only buffers of exactly a class size go back.
func TestBodyClasses(t *testing.T) {
	for _, c := range []struct {
		n, class int
		ok       bool
	}{{minPooledBody - 1, 0, false}, {minPooledBody, 0, true}, {minPooledBody + 1, 1, true}, {16 << 10, 2, true}, {100 << 10, 5, true}, {maxPooledBody, maxPooledShift - minPooledShift, true}, {maxPooledBody + 1, 0, false}} {
		class, ok := bodyClass(c.n)
		if class != c.class || ok != c.ok {
			t.Errorf("bodyClass(%d) = %d, %v; want %d, %v", c.n, class, ok, c.class, c.ok)
		}
		if b, ok := getBody(c.n); ok != c.ok || (ok && (len(b) != c.n || cap(b) != minPooledBody<<c.class)) {
			t.Errorf("getBody(%d): len %d cap %d ok %v", c.n, len(b), cap(b), ok)
		}
	}
	// A buffer of another capacity (an exactly sized large body) is left
	// to the GC, never handed out for a class it does not fill.
	putBody(make([]byte, 0, 5000))
	for range 100 {
		if b, _ := getBody(5000); cap(b) != 8<<10 {
			t.Fatalf("getBody(5000) has capacity %d", cap(b))
		}
	}
}

// TestRecycleReleasesBody: a request read by ReadRequest gives its buffer
// back once, and its Body is gone afterwards.
func TestRecycleReleasesBody(t *testing.T) {
	body := bytes.Repeat([]byte{1}, 10<<10)
	hdr := []byte{0, 0, 0, 3, 0, 0, 0, 9, 0xff, 0xff}
	in := append(sizePrefix(int32(len(hdr)+len(body))), append(hdr, body...)...)
	req, err := ReadRequest(bytes.NewReader(in), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(req.Body, body) {
		t.Fatal("body differs")
	}
	req.Recycle()
	req.Recycle() // a second call has nothing to give back
	if req.Body != nil {
		t.Fatal("Body kept after Recycle")
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
