package storage

import (
	"errors"
	"testing"

	"kafgo/broker/record"
)

// A log of five 3-record batches of 200 bytes... sizes vary so byte limits
// fall inside batches: batch i holds offsets [3i, 3i+2].
func readFixture(t *testing.T) (*Log, []int) {
	t.Helper()
	cfg := testConfig()
	cfg.IndexIntervalBytes = 100
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	t.Cleanup(func() { l.Close() })
	var sizes []int
	for i := 0; i < 5; i++ {
		b := plain(3, 40+20*i, int64(1000+i)).bytes()
		sizes = append(sizes, len(b))
		mustAppend(t, l, b, 0)
	}
	return l, sizes
}

func TestReadBoundaries(t *testing.T) {
	l, sizes := readFixture(t)
	sum := func(from, to int) int64 {
		var n int64
		for _, s := range sizes[from:to] {
			n += int64(s)
		}
		return n
	}
	tests := []struct {
		name        string
		start       int64
		maxBytes    int32
		maxOffset   int64
		minOne      bool
		wantFirst   int64
		wantBatches int // batches returned, from wantFirst's batch on
		wantErr     error
	}{
		{"whole log", 0, 1 << 20, 15, true, 0, 5, nil},
		{"from mid batch starts at its base", 4, 1 << 20, 15, true, 3, 4, nil},
		{"maxBytes cuts at a batch boundary", 0, int32(sum(0, 2) + 10), 15, false, 0, 2, nil},
		{"maxBytes exactly two batches", 0, int32(sum(0, 2)), 15, false, 0, 2, nil},
		{"maxBytes below one batch, minOneBatch", 0, 10, 15, true, 0, 1, nil},
		{"maxBytes below one batch, no minOneBatch", 0, 10, 15, false, 0, 0, nil},
		{"maxBytes zero, minOneBatch", 6, 0, 15, true, 6, 1, nil},
		{"maxOffset excludes the batch reaching it", 0, 1 << 20, 8, true, 0, 2, nil},
		{"maxOffset at a batch's last offset excludes it", 0, 1 << 20, 5, true, 0, 1, nil},
		{"maxOffset just past a batch includes it", 0, 1 << 20, 6, true, 0, 2, nil},
		{"maxOffset inside the first batch: nothing", 1, 1 << 20, 2, true, 1, 0, nil},
		{"maxOffset beyond the end is capped", 9, 1 << 20, 1 << 40, true, 9, 2, nil},
		{"at the log end: empty", 15, 1 << 20, 15, true, 15, 0, nil},
		{"above the log end", 16, 1 << 20, 20, true, 16, 0, ErrOffsetOutOfRange},
		{"below the log start", -1, 1 << 20, 20, true, -1, 0, ErrOffsetOutOfRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, err := l.Read(tc.start, tc.maxBytes, tc.maxOffset, tc.minOne)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if info.LogEndOffset != 15 || info.LogStartOffset != 0 {
				t.Errorf("log start/end = %d/%d, want 0/15", info.LogStartOffset, info.LogEndOffset)
			}
			if info.FirstOffset != tc.wantFirst {
				t.Errorf("FirstOffset = %d, want %d", info.FirstOffset, tc.wantFirst)
			}
			firstBatch := int(tc.wantFirst / 3)
			if want := sum(firstBatch, firstBatch+tc.wantBatches); tc.wantBatches > 0 && info.Size != want || tc.wantBatches == 0 && info.Size != 0 {
				t.Fatalf("Size = %d, want %d (%d batches)", info.Size, want, tc.wantBatches)
			}
			var got int64
			for _, r := range info.Regions {
				buf := make([]byte, r.Size)
				if _, err := r.File.ReadAt(buf, r.Position); err != nil {
					t.Fatal(err)
				}
				bs := splitBatchesT(t, buf)
				if len(bs) != tc.wantBatches {
					t.Fatalf("%d batches in the region, want %d", len(bs), tc.wantBatches)
				}
				h, _ := record.ParseBatchHeader(bs[0])
				if h.BaseOffset != tc.wantFirst {
					t.Errorf("first batch base %d, want %d", h.BaseOffset, tc.wantFirst)
				}
				got += r.Size
			}
			if got != info.Size {
				t.Errorf("regions sum to %d, Size %d", got, info.Size)
			}
		})
	}
}

// Reads continue into the next segment when the start offset is past the
// data of the segment that holds it, and come from one segment per call.
func TestReadAcrossSegments(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 600
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	for i := 0; i < 10; i++ {
		mustAppend(t, l, sized(250, 1000), 0)
	}
	if n := l.NumSegments(); n != 5 {
		t.Fatalf("%d segments, want 5 (two 250-byte batches per 600-byte segment)", n)
	}
	info, err := l.Read(1, 1<<20, l.LogEndOffset(), true)
	if err != nil {
		t.Fatal(err)
	}
	if info.FirstOffset != 1 || info.Size != 250 {
		t.Errorf("Read(1) = first %d size %d, want 1 and 250 (one segment per call)", info.FirstOffset, info.Size)
	}
	hs := readAll(t, l, 0)
	if len(hs) != 10 {
		t.Fatalf("read %d batches, want 10", len(hs))
	}
	for i, h := range hs {
		if h.BaseOffset != int64(i) {
			t.Errorf("batch %d has base %d", i, h.BaseOffset)
		}
	}
}
