package storage

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

func TestRollTriggers(t *testing.T) {
	tests := []struct {
		name     string
		cfg      func(*LogConfig)
		run      func(t *testing.T, l *Log, clk *fakeClock)
		wantSegs []int64 // base offsets afterwards
	}{
		{
			name: "segment.bytes",
			cfg:  func(c *LogConfig) { c.SegmentBytes = 1000 },
			run: func(t *testing.T, l *Log, _ *fakeClock) {
				mustAppend(t, l, sized(400, 1), 0) // 400
				mustAppend(t, l, sized(400, 1), 0) // 800
				mustAppend(t, l, sized(200, 1), 0) // 1000: exactly fits
				mustAppend(t, l, sized(100, 1), 0) // 1100 > 1000: rolls at 3
			},
			wantSegs: []int64{0, 3},
		},
		{
			name: "segment.ms from the first batch's timestamp",
			cfg:  func(c *LogConfig) { c.SegmentMs = 1000 },
			run: func(t *testing.T, l *Log, _ *fakeClock) {
				mustAppend(t, l, sized(100, 5000), 0)
				mustAppend(t, l, sized(100, 6000), 0) // waited 1000: not more than segment.ms
				mustAppend(t, l, sized(100, 6001), 0) // 1001 > 1000: roll at 2
			},
			wantSegs: []int64{0, 2},
		},
		{
			name: "segment.ms from creation time without timestamps",
			cfg:  func(c *LogConfig) { c.SegmentMs = 1000 },
			run: func(t *testing.T, l *Log, clk *fakeClock) {
				mustAppend(t, l, sized(100, -1), 0)
				clk.Advance(1000 * time.Millisecond)
				mustAppend(t, l, sized(100, -1), 0)
				clk.Advance(time.Millisecond)
				mustAppend(t, l, sized(100, -1), 0)
			},
			wantSegs: []int64{0, 2},
		},
		{
			name: "offset index full",
			cfg: func(c *LogConfig) {
				c.SegmentIndexBytes = 48 // 6 offset entries, 4 time entries (3 usable)
				c.IndexIntervalBytes = 0
			},
			run: func(t *testing.T, l *Log, _ *fakeClock) {
				for i := 0; i < 8; i++ {
					mustAppend(t, l, sized(100, 1), 0) // constant ts: one time entry
				}
			},
			wantSegs: []int64{0, 7},
		},
		{
			name: "time index full keeps its last slot",
			cfg: func(c *LogConfig) {
				c.SegmentIndexBytes = 36 // 4 offset entries, 3 time entries, 2 usable
				c.IndexIntervalBytes = 0
			},
			run: func(t *testing.T, l *Log, _ *fakeClock) {
				for i := 0; i < 4; i++ {
					mustAppend(t, l, sized(100, int64(10+i)), 0)
				}
			},
			// entries come with appends 1 and 2 (ts 11, 12): full, so append 3 rolls.
			wantSegs: []int64{0, 3},
		},
		{
			name: "relative offset overflow",
			cfg:  func(c *LogConfig) {},
			run: func(t *testing.T, l *Log, _ *fakeClock) {
				b := plain(1, 10, 1)
				if _, err := l.AppendAsFollower(b.bytes()); err != nil {
					t.Fatal(err)
				}
				b.base = math.MaxInt32 // relative offset MaxInt32 still fits
				if _, err := l.AppendAsFollower(b.bytes()); err != nil {
					t.Fatal(err)
				}
				b.base = math.MaxInt32 + 1
				if _, err := l.AppendAsFollower(b.bytes()); err != nil {
					t.Fatal(err)
				}
			},
			wantSegs: []int64{0, math.MaxInt32 + 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.cfg(&cfg)
			clk := newFakeClock(1_000_000)
			l := openTestLog(t, partDir(t), cfg, OpenOptions{Clock: clk.Now})
			defer l.Close()
			tc.run(t, l, clk)
			got := l.SegmentBaseOffsets()
			if len(got) != len(tc.wantSegs) {
				t.Fatalf("segments %v, want %v", got, tc.wantSegs)
			}
			for i := range got {
				if got[i] != tc.wantSegs[i] {
					t.Fatalf("segments %v, want %v", got, tc.wantSegs)
				}
			}
		})
	}
}

// On roll the old segment's indexes are trimmed to their entries, its time
// index gets the segment's largest timestamp, a producer snapshot is written
// at the new base, and the recovery point moves to it in the background.
func TestRollSealsSegment(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 1000
	dir := partDir(t)
	l := openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()
	mustAppend(t, l, sized(300, 50), 0)
	mustAppend(t, l, sized(300, 70), 0)
	mustAppend(t, l, sized(300, 60), 0)
	first := l.segments()[0]
	if n := first.timeIdx.n.Load(); n != 0 {
		t.Fatalf("time index has %d entries before the roll, want 0 (no 4096 bytes yet)", n)
	}
	mustAppend(t, l, sized(300, 80), 0) // rolls at 3
	for _, c := range []struct {
		ext  string
		want int64
	}{{".index", 0}, {".timeindex", 12}} {
		st, err := os.Stat(filepath.Join(dir, "00000000000000000000"+c.ext))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != c.want {
			t.Errorf("%s is %d bytes after the roll, want %d", c.ext, st.Size(), c.want)
		}
	}
	if got := first.timeIdx.entries(); !equalPairs(got, [][2]int64{{70, 1}}) {
		t.Errorf("final time index entry %v, want [[70 1]]", got)
	}
	st, err := os.Stat(filepath.Join(dir, "00000000000000000003.index"))
	if err != nil || st.Size() != cfg.maxIndexBytes(offsetEntrySize) {
		t.Errorf("new active index: %v, size %d, want preallocated %d", err, st.Size(), cfg.maxIndexBytes(offsetEntrySize))
	}
	if _, err := os.Stat(filepath.Join(dir, "00000000000000000003.snapshot")); err != nil {
		t.Errorf("no producer snapshot at the roll: %v", err)
	}
	testwait.Until(t, 5*time.Second, "recovery point to reach the rolled segment", func() bool { return l.RecoveryPoint() >= 3 })
}
