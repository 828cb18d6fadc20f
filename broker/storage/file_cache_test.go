package storage

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"kafgo/broker/record"
)

func withMaxOpenFiles(t *testing.T, n int) {
	SetMaxOpenFiles(n)
	t.Cleanup(func() { SetMaxOpenFiles(0) })
}

// openLogs opens n logs under root, each with one record.
func openLogs(t *testing.T, root string, n int) []*Log {
	t.Helper()
	var logs []*Log
	for i := 0; i < n; i++ {
		l := openTestLog(t, filepath.Join(root, fmt.Sprintf("t-%d", i)), testConfig(), OpenOptions{})
		t.Cleanup(func() { l.Close() })
		mustAppend(t, l, keyedBatch(t, record.CodecNone, 1, kv("k", fmt.Sprint(i))), 0)
		logs = append(logs, l)
	}
	return logs
}

// A region handed out keeps its descriptor open however many other files
// the cache opens meanwhile (a sendfile in flight must not see it closed,
// or worse, its number reused); released, the descriptor becomes
// evictable like any other.
func TestRegionPinsItsDescriptor(t *testing.T) {
	withMaxOpenFiles(t, 4)
	logs := openLogs(t, t.TempDir(), 12)
	info, err := logs[0].Read(0, 1<<20, 1, true)
	if err != nil || info.Size == 0 {
		t.Fatalf("read: %+v, %v", info, err)
	}
	reg := info.Regions[0]
	for round := 0; round < 3; round++ {
		for _, l := range logs[1:] {
			if _, err := l.ReadBytes(0, 1<<20, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if hs := Handles(); hs.FileEvictions == 0 {
		t.Fatalf("no evictions with %d logs and room for 4: %+v", len(logs), hs)
	}
	buf := make([]byte, reg.Size)
	if _, err := reg.File.ReadAt(buf, reg.Position); err != nil {
		t.Fatalf("the pinned descriptor was closed under the region: %v", err)
	}
	if _, err := record.ParseBatchHeader(buf); err != nil {
		t.Fatalf("the region reads another file: %v", err)
	}
	h := logs[0].active().log
	info.Release()
	info.Release() // a second release does nothing
	for _, l := range logs[1:] {
		l.ReadBytes(0, 1<<20, 1)
	}
	h.mu.Lock()
	open, pins := h.f != nil, h.pins
	h.mu.Unlock()
	if pins != 0 || open {
		t.Fatalf("released region: %d pins, descriptor open %v", pins, open)
	}
}

// A region dropped without Release is unpinned once the garbage collector
// finds it unreachable.
func TestDroppedRegionIsReleasedByTheGC(t *testing.T) {
	logs := openLogs(t, t.TempDir(), 1)
	h := logs[0].active().log
	func() {
		info, err := logs[0].Read(0, 1<<20, 1, true)
		if err != nil || len(info.Regions) != 1 {
			t.Fatalf("read: %+v, %v", info, err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		h.mu.Lock()
		pins := h.pins
		h.mu.Unlock()
		if pins == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pins left by a dropped region", pins)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Closing a log while one of its regions is out closes the descriptor only
// when the region is released.
func TestCloseWaitsForPinnedRegions(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	mustAppend(t, l, keyedBatch(t, record.CodecNone, 1, kv("k", "v")), 0)
	info, err := l.Read(0, 1<<20, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	h := l.active().log
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, info.Size)
	if _, err := info.Regions[0].File.ReadAt(buf, info.Regions[0].Position); err != nil {
		t.Fatalf("region of a closed log: %v", err)
	}
	info.Release()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f != nil {
		t.Fatal("the descriptor stayed open after the last release")
	}
}
