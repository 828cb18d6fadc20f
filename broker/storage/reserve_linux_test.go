package storage

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// allocatedBytes is the disk space the file system gave path (st_blocks),
// which fallocate's KEEP_SIZE reservations count and its size does not.
func allocatedBytes(t *testing.T, path string) (size, allocated int64) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size(), st.Sys().(*syscall.Stat_t).Blocks * 512
}

// TestActiveSegmentReservesBlocksAhead: appends to the active segment land
// in blocks reserved ahead of them (so the write does not allocate), the
// file's size stays exactly the bytes appended (readers and Kafka's tools
// see the same file), and a rolled segment gives the reservation back.
func TestActiveSegmentReservesBlocksAhead(t *testing.T) {
	dir := partDir(t)
	cfg := testConfig()
	cfg.SegmentBytes = 256 << 10
	l := openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()
	batch := sized(4000, 1)
	for range 20 {
		mustAppend(t, l, batch, 0)
	}
	first := filepath.Join(dir, "00000000000000000000.log")
	size, alloc := allocatedBytes(t, first)
	if size != int64(20*len(batch)) {
		t.Fatalf("active segment is %d bytes, want %d appended", size, 20*len(batch))
	}
	if alloc < size+minReserveAhead {
		if probe := reserveSupported(t); !probe {
			t.Skip("this file system does not reserve blocks past the end (fallocate KEEP_SIZE)")
		}
		t.Fatalf("active segment: %d bytes allocated for %d written, want at least %d ahead", alloc, size, minReserveAhead)
	}
	// Roll: the sealed segment keeps its bytes and returns the rest.
	for l.NumSegments() < 2 {
		mustAppend(t, l, batch, 0)
	}
	size, alloc = allocatedBytes(t, first)
	if slack := alloc - size; slack >= 64<<10 {
		t.Fatalf("sealed segment: %d bytes allocated for %d, %d past its end still reserved", alloc, size, slack)
	}
	if got := len(readAll(t, l, 0)); got != int(l.LogEndOffset()) {
		t.Fatalf("read %d batches back, want %d", got, l.LogEndOffset())
	}
}

// reserveSupported says whether the temp dir's file system keeps blocks
// reserved past a file's end.
func reserveSupported(t *testing.T) bool {
	f, err := os.CreateTemp(t.TempDir(), "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Fallocate(int(f.Fd()), 1, 0, 1<<20); err != nil {
		return false
	}
	_, alloc := allocatedBytes(t, f.Name())
	return alloc >= 1<<20
}
