//go:build linux

package wire

import (
	"bytes"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestSendfileFallsBackMidway: when the kernel refuses sendfile after part of
// a region went out, the rest follows by pread from the right offset.
func TestSendfileFallsBackMidway(t *testing.T) {
	f, data := tempFile(t, 3<<20)
	real := sendfileSyscall
	defer func() { sendfileSyscall = real }()
	tests := []struct {
		name  string
		after int64 // bytes sendfile delivers before failing
		errno syscall.Errno
	}{
		{"EINVAL at once", 0, syscall.EINVAL},
		{"ENOSYS after 100 KiB", 100 << 10, syscall.ENOSYS},
		{"EOPNOTSUPP after 1 MiB", 1 << 20, syscall.EOPNOTSUPP},
	}
	parts := []Part{{Bytes: []byte("a")}, {File: f, Offset: 11, Length: 2<<20 + 5}}
	want := expected(data, parts)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			var done atomic.Int64
			sendfileSyscall = func(out, in int, off *int64, n int) (int, error) {
				calls.Add(1)
				left := tt.after - done.Load()
				if left <= 0 {
					return -1, tt.errno
				}
				m, err := real(out, in, off, int(min(int64(n), left)))
				if m > 0 {
					done.Add(int64(m))
				}
				return m, err
			}
			_, addr, _ := startServer(t, ServerConfig{}, partsHandler(func(int32) []Part { return parts }))
			nc := dial(t, addr)
			writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
			frame := readFrameRaw(t, nc)
			if !bytes.Equal(frame[4:], want) {
				t.Fatalf("body differs (%d bytes, want %d)", len(frame)-4, len(want))
			}
			if calls.Load() == 0 {
				t.Fatal("sendfile was not attempted")
			}
		})
	}
}

// TestSmallFilePartsCopiedIntoTheBuffer: a response of many small file
// regions (a fetch of many partitions with a little data each) goes out
// without a sendfile per region, byte-exact.
func TestSmallFilePartsCopiedIntoTheBuffer(t *testing.T) {
	f, data := tempFile(t, 1<<20)
	real := sendfileSyscall
	defer func() { sendfileSyscall = real }()
	var calls atomic.Int64
	sendfileSyscall = func(out, in int, off *int64, n int) (int, error) {
		calls.Add(1)
		return real(out, in, off, n)
	}
	var parts []Part
	for i := range 25 {
		parts = append(parts, Part{Bytes: []byte{byte(i)}}, Part{File: f, Offset: int64(i) * 3000, Length: int64(100 + i*97)})
	}
	parts = append(parts, Part{File: f, Offset: 10, Length: smallRegion + 1}) // one large region still goes by sendfile
	want := expected(data, parts)
	_, addr, _ := startServer(t, ServerConfig{}, partsHandler(func(int32) []Part { return parts }))
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	frame := readFrameRaw(t, nc)
	if !bytes.Equal(frame[4:], want) {
		t.Fatalf("body differs (%d bytes, want %d)", len(frame)-4, len(want))
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d sendfile calls, want 1 (the large region only)", n)
	}
}
