package storage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

// Ten segments of one 200-byte batch each; segment i's timestamp is
// 1000*i ms.
func retentionFixture(t *testing.T, mod func(*LogConfig)) (*Log, *fakeClock) {
	t.Helper()
	cfg := testConfig()
	cfg.SegmentBytes = 250
	cfg.RetentionMs = -1
	cfg.RetentionBytes = -1
	if mod != nil {
		mod(&cfg)
	}
	clk := newFakeClock(100_000)
	l := openTestLog(t, partDir(t), cfg, OpenOptions{Clock: clk.Now})
	t.Cleanup(func() { l.Close() })
	for i := 0; i < 10; i++ {
		mustAppend(t, l, sized(200, int64(1000*i)), 0)
	}
	if l.NumSegments() != 10 {
		t.Fatalf("%d segments", l.NumSegments())
	}
	return l, clk
}

func TestRetention(t *testing.T) {
	tests := []struct {
		name      string
		cfg       func(*LogConfig)
		prep      func(l *Log, clk *fakeClock)
		want      int // segments deleted
		wantStart int64
	}{
		{"infinite", nil, nil, 0, 0},
		{"by time", func(c *LogConfig) { c.RetentionMs = 95_500 }, nil, 5, 5}, // now-ts > 95500 for ts < 4500
		{"by time never deletes the active segment", func(c *LogConfig) { c.RetentionMs = 10 }, nil, 9, 9},
		{"by time after the clock moves", func(c *LogConfig) { c.RetentionMs = 99_000 }, func(_ *Log, clk *fakeClock) { clk.Advance(3 * time.Second) }, 4, 4}, // ts < 4000
		{"by size", func(c *LogConfig) { c.RetentionBytes = 700 }, nil, 6, 6},                                                                                 // 2000 bytes: delete while the rest stays >= 700
		{"by size exact", func(c *LogConfig) { c.RetentionBytes = 600 }, nil, 7, 7},                                                                           // 2000-1400 = 600 >= 600
		{"by size never the active", func(c *LogConfig) { c.RetentionBytes = 0 }, nil, 9, 9},
		{"bounded by the high watermark", func(c *LogConfig) { c.RetentionBytes = 0 }, func(l *Log, _ *fakeClock) { l.SetHighWatermark(4) }, 4, 4}, // segments ending at or below 4
		{"below the log start", nil, func(l *Log, _ *fakeClock) { l.logStart.Store(6) }, 6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, clk := retentionFixture(t, tc.cfg)
			if tc.prep != nil {
				tc.prep(l, clk)
			}
			n, err := l.DeleteRetainedSegments()
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want || l.NumSegments() != 10-tc.want {
				t.Fatalf("deleted %d (now %d segments), want %d", n, l.NumSegments(), tc.want)
			}
			if l.LogStartOffset() != tc.wantStart {
				t.Errorf("log start %d, want %d", l.LogStartOffset(), tc.wantStart)
			}
			if got := l.Size(); got != int64(200*(10-tc.want)) {
				t.Errorf("size %d", got)
			}
			if hs := readAll(t, l, l.LogStartOffset()); len(hs) != 10-tc.want {
				t.Errorf("read %d batches after retention", len(hs))
			}
		})
	}
}

// Retired segments are renamed *.deleted at once and removed only after
// file.delete.delay.ms; a reader holding a region keeps reading meanwhile.
func TestRetentionDelaysFileRemoval(t *testing.T) {
	l, _ := retentionFixture(t, func(c *LogConfig) { c.RetentionBytes = 0; c.FileDeleteDelayMs = 200 })
	info, err := l.Read(0, 1000, 10, true)
	if err != nil || info.Size != 200 {
		t.Fatalf("read: %v, size %d", err, info.Size)
	}
	if _, err := l.DeleteRetainedSegments(); err != nil {
		t.Fatal(err)
	}
	dir := l.Dir()
	deleted, _ := filepath.Glob(filepath.Join(dir, "*.deleted"))
	if len(deleted) != 9*3 {
		t.Fatalf("%d .deleted files, want 27 (log, index, timeindex of 9 segments)", len(deleted))
	}
	r := info.Regions[0]
	buf := make([]byte, r.Size)
	if _, err := r.File.ReadAt(buf, r.Position); err != nil {
		t.Fatalf("in-flight reader lost its segment: %v", err)
	}
	splitBatchesT(t, buf)
	testwait.Until(t, 5*time.Second, ".deleted files to be removed", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "*.deleted"))
		return len(m) == 0
	})
	if _, err := os.Stat(filepath.Join(dir, "00000000000000000009.log")); err != nil {
		t.Errorf("active segment gone: %v", err)
	}
}

// Close removes retired segments at once rather than leaving them behind.
func TestCloseFinishesPendingDeletes(t *testing.T) {
	l, _ := retentionFixture(t, func(c *LogConfig) { c.RetentionBytes = 0; c.FileDeleteDelayMs = 3600_000 })
	if _, err := l.DeleteRetainedSegments(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(l.Dir(), "*.deleted")); len(m) != 0 {
		t.Errorf("%d .deleted files left after close", len(m))
	}
}
