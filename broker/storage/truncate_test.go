package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

// truncFixture: 3-record batches of ~100 bytes, 4 per 450-byte segment,
// epochs 1 for offsets [0, 18) and 3 from 18, producer 9 writing from 12 on.
func truncFixture(t *testing.T) *Log {
	t.Helper()
	cfg := testConfig()
	cfg.SegmentBytes = 450
	cfg.IndexIntervalBytes = 50
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	t.Cleanup(func() { l.Close() })
	seq := int32(0)
	for i := 0; i < 10; i++ {
		epoch := int32(1)
		if i >= 6 {
			epoch = 3
		}
		b := plain(3, 10, int64(100+i))
		if i >= 4 {
			b = idem(9, 0, seq, 3)
			seq += 3
		}
		mustAppend(t, l, b.bytes(), epoch)
	}
	return l
}

func TestTruncateTo(t *testing.T) {
	tests := []struct {
		name       string
		to         int64
		wantLEO    int64
		wantEpochs []EpochEntry
		wantSeq    int32 // producer 9's last sequence, -2 = no state
	}{
		{"at the end is a no-op", 30, 30, []EpochEntry{{1, 0}, {3, 18}}, 17},
		{"beyond the end is a no-op", 99, 30, []EpochEntry{{1, 0}, {3, 18}}, 17},
		{"batch boundary in the active segment", 27, 27, []EpochEntry{{1, 0}, {3, 18}}, 14},
		{"mid batch drops the whole batch", 26, 24, []EpochEntry{{1, 0}, {3, 18}}, 11},
		{"at an epoch start drops the epoch", 18, 18, []EpochEntry{{1, 0}}, 5},
		{"into an older segment", 7, 6, []EpochEntry{{1, 0}}, -2},
		{"to zero", 0, 0, nil, -2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := truncFixture(t)
			if err := l.TruncateTo(tc.to); err != nil {
				t.Fatal(err)
			}
			if got := l.LogEndOffset(); got != tc.wantLEO {
				t.Fatalf("log end %d, want %d", got, tc.wantLEO)
			}
			if got := l.Epochs().Entries(); !equalEpochs(got, tc.wantEpochs) {
				t.Errorf("epochs %v, want %v", got, tc.wantEpochs)
			}
			p, ok := l.Producers().Producer(9)
			if tc.wantSeq == -2 && ok || tc.wantSeq != -2 && (!ok || p.LastSequence() != tc.wantSeq) {
				t.Errorf("producer 9: %+v (known %v), want last sequence %d", p, ok, tc.wantSeq)
			}
			hs := readAll(t, l, 0)
			if n := len(hs); n > 0 && hs[n-1].NextOffset() != tc.wantLEO || n == 0 && tc.wantLEO != 0 {
				t.Fatalf("read %d batches ending at the wrong offset", n)
			}
			if l.RecoveryPoint() > tc.wantLEO {
				t.Errorf("recovery point %d above the log end %d", l.RecoveryPoint(), tc.wantLEO)
			}
			// Appends continue at the new end, with sequence checks against
			// the rebuilt producer state.
			next := tc.wantSeq + 1
			if tc.wantSeq == -2 {
				next = 0
			}
			info := mustAppend(t, l, idem(9, 0, next, 3).bytes(), 4)
			if info.FirstOffset != tc.wantLEO {
				t.Errorf("append after truncation at %d, want %d", info.FirstOffset, tc.wantLEO)
			}
			if hs := readAll(t, l, tc.wantLEO); len(hs) != 1 || hs[0].PartitionLeaderEpoch != 4 {
				t.Errorf("appended batch reads back as %+v", hs)
			}
		})
	}
}

func equalEpochs(a, b []EpochEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Producer state after a truncation equals a replay of what remains, and
// truncation survives a restart (the stale snapshots past the end are gone).
func TestTruncateThenReopen(t *testing.T) {
	l := truncFixture(t)
	dir := l.Dir()
	if err := l.TruncateTo(20); err != nil {
		t.Fatal(err)
	}
	for _, off := range l.Producers().SnapshotOffsets() {
		if off > l.LogEndOffset() {
			t.Errorf("snapshot at %d survives truncation to %d", off, l.LogEndOffset())
		}
	}
	want, _ := l.Producers().Producer(9)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.SegmentBytes = 450
	l2 := openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: true})
	defer l2.Close()
	if l2.LogEndOffset() != 18 {
		t.Fatalf("reopened log end %d, want 18", l2.LogEndOffset())
	}
	got, _ := l2.Producers().Producer(9)
	if got.Epoch != want.Epoch || got.LastSequence() != want.LastSequence() || got.LastOffset() != want.LastOffset() {
		t.Errorf("producer after reopen %+v, before %+v", got, want)
	}
}

func TestTruncateFullyAndStartAt(t *testing.T) {
	l := truncFixture(t)
	dir := l.Dir()
	if err := l.TruncateFullyAndStartAt(100); err != nil {
		t.Fatal(err)
	}
	if l.LogEndOffset() != 100 || l.LogStartOffset() != 100 || l.NumSegments() != 1 {
		t.Fatalf("end %d start %d segments %d, want 100 100 1", l.LogEndOffset(), l.LogStartOffset(), l.NumSegments())
	}
	if len(l.Epochs().Entries()) != 0 || len(l.Producers().Producers()) != 0 {
		t.Error("epochs or producers survived")
	}
	if _, err := l.Read(50, 100, 200, true); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("read below the new start: %v", err)
	}
	b := plain(1, 5, 1)
	b.base, b.epoch = 100, 7
	if _, err := l.AppendAsFollower(b.bytes()); err != nil {
		t.Fatal(err)
	}
	if hs := readAll(t, l, 100); len(hs) != 1 || hs[0].BaseOffset != 100 {
		t.Fatalf("read back %+v", hs)
	}
	// The retired files go (file.delete.delay.ms is 0 in tests).
	testwait.Until(t, 5*time.Second, "retired segments to be removed", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "*.log*"))
		return len(m) == 1
	})
	// Starting again at an offset whose segment name is taken works too.
	if err := l.TruncateFullyAndStartAt(100); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00000000000000000100.log")); err != nil {
		t.Fatal(err)
	}
}

func TestSetLogStartOffset(t *testing.T) {
	l := truncFixture(t)
	if err := l.SetLogStartOffset(31); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("beyond the end: %v", err)
	}
	segsBefore := l.SegmentBaseOffsets()
	if err := l.SetLogStartOffset(20); err != nil {
		t.Fatal(err)
	}
	if l.LogStartOffset() != 20 {
		t.Fatalf("log start %d", l.LogStartOffset())
	}
	for _, b := range l.SegmentBaseOffsets() {
		if b < 12 {
			t.Errorf("segment %d wholly below the start survives (before: %v, after: %v)", b, segsBefore, l.SegmentBaseOffsets())
		}
	}
	if got := l.Epochs().Entries(); !equalEpochs(got, []EpochEntry{{3, 20}}) {
		t.Errorf("epochs %v, want [{3 20}]", got)
	}
	if err := l.SetLogStartOffset(5); err != nil || l.LogStartOffset() != 20 {
		t.Errorf("moving back: err %v, start %d", err, l.LogStartOffset())
	}
	if _, err := l.Read(19, 100, 30, true); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("read below the start: %v", err)
	}
	info, err := l.Read(20, 1, 30, true)
	if err != nil || info.FirstOffset != 18 {
		t.Errorf("read at the start: first %d err %v, want the batch at 18", info.FirstOffset, err)
	}
	for _, off := range l.Producers().SnapshotOffsets() {
		if off < 20 {
			t.Errorf("snapshot %d below the log start survives", off)
		}
	}
}
