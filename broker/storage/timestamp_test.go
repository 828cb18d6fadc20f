package storage

import (
	"testing"

	"kafgo/broker/record"
)

func TestOffsetForTimestamp(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 400
	cfg.IndexIntervalBytes = 0
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	// Offsets and record timestamps:
	//   batch 0: 0..2 at 100 110 105
	//   batch 1: 3..5 at 200 150 210
	//   batch 2: 6 (zstd) at 300
	//   batch 3: 7..8 at 400 400
	mustAppend(t, l, plain(3, 20, 100).withDeltas(0, 10, 5).bytes(), 0)
	mustAppend(t, l, plain(3, 20, 200).withDeltas(0, -50, 10).bytes(), 0)
	mustAppend(t, l, built(t, record.CodecZstd, -1, 300), 0)
	mustAppend(t, l, plain(2, 20, 400).withDeltas(0, 0).bytes(), 0)
	if l.NumSegments() < 2 {
		t.Fatalf("want the lookups to cross segments, have %d", l.NumSegments())
	}
	tests := []struct {
		ts          int64
		wantOff     int64
		wantTs      int64
		wantFound   bool
		description string
	}{
		{0, 0, 100, true, "before everything: first record"},
		{100, 0, 100, true, "exact first"},
		{101, 1, 110, true, "record level inside a batch"},
		{110, 1, 110, true, "exact inside"},
		{111, 3, 200, true, "next batch"},
		{160, 3, 200, true, "the 150 record is smaller, 200 is first at or above"},
		{201, 5, 210, true, "last record of batch 1"},
		{250, 6, 300, true, "compressed batch: its record"},
		{301, 7, 400, true, "later segment"},
		{401, -1, -1, false, "after everything"},
	}
	for _, tc := range tests {
		t.Run(tc.description, func(t *testing.T) {
			off, ts, found, err := l.OffsetForTimestamp(tc.ts)
			if err != nil {
				t.Fatal(err)
			}
			if off != tc.wantOff || ts != tc.wantTs || found != tc.wantFound {
				t.Errorf("OffsetForTimestamp(%d) = (%d, %d, %v), want (%d, %d, %v)", tc.ts, off, ts, found, tc.wantOff, tc.wantTs, tc.wantFound)
			}
		})
	}
	if ts, off, err := l.MaxTimestamp(); err != nil || ts != 400 || off != 7 {
		t.Errorf("MaxTimestamp = %d@%d (%v), want 400@7", ts, off, err)
	}
	// With the log start past offset 4, lookups never answer below it.
	if err := l.SetLogStartOffset(4); err != nil {
		t.Fatal(err)
	}
	if off, _, _, _ := l.OffsetForTimestamp(0); off != 4 {
		t.Errorf("after log start 4: offset %d, want 4", off)
	}
}
