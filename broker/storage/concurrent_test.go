package storage

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/broker/record"
)

// Readers run against a writer that appends, rolls and retires segments.
// Every byte a reader gets must split into whole batches with valid CRCs,
// contiguous offsets, none reaching the bound it asked for.
func TestConcurrentReadersNeverSeeTornBatches(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 32 << 10
	cfg.IndexIntervalBytes = 512
	cfg.RetentionBytes = 128 << 10
	cfg.RetentionMs = -1
	cfg.FileDeleteDelayMs = 2000
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()

	const maxBatches = 3000
	deadline := time.Now().Add(1500 * time.Millisecond)
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < maxBatches && time.Now().Before(deadline); i++ {
			b := plain(1+rng.IntN(8), 10+rng.IntN(600), int64(i)).bytes()
			if _, err := l.AppendAsLeader(b, 0); err != nil {
				t.Errorf("append %d: %v", i, err)
				return
			}
			if i%200 == 199 {
				if _, err := l.DeleteRetainedSegments(); err != nil {
					t.Errorf("retention: %v", err)
					return
				}
			}
		}
	}()
	var reads atomic.Int64
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			tail := int64(0)
			for i := 0; i < 200000 && !done.Load(); i++ {
				leo := l.LogEndOffset()
				start := tail
				if rng.IntN(2) == 0 && leo > 0 {
					start = l.LogStartOffset() + rng.Int64N(max(leo-l.LogStartOffset(), 1))
				}
				maxOff := leo
				if rng.IntN(3) == 0 && leo > start {
					maxOff = start + rng.Int64N(leo-start) + 1 // an HW-like bound
				}
				info, err := l.Read(start, int32(rng.IntN(20000)), maxOff, rng.IntN(2) == 0)
				if errors.Is(err, ErrOffsetOutOfRange) {
					tail = l.LogStartOffset()
					continue
				}
				if err != nil {
					t.Errorf("Read(%d): %v", start, err)
					return
				}
				reads.Add(1)
				next, ok := checkRegion(t, info, start, maxOff)
				if !ok {
					return
				}
				if start == tail && info.Size > 0 {
					tail = next
				}
			}
		}(uint64(r))
	}
	wg.Wait()
	if reads.Load() < 100 {
		t.Errorf("only %d reads completed", reads.Load())
	}
	// The final state reads back whole.
	hs := readAll(t, l, l.LogStartOffset())
	if len(hs) == 0 || hs[len(hs)-1].NextOffset() != l.LogEndOffset() {
		t.Errorf("final read-back ends wrong")
	}
}

// checkRegion verifies what a Read returned and gives the offset after its
// last batch.
func checkRegion(t *testing.T, info ReadInfo, start, maxOff int64) (int64, bool) {
	t.Helper()
	var total int64
	next := int64(-1)
	for i := range info.Regions {
		r := &info.Regions[i]
		buf := make([]byte, r.Size)
		if _, err := r.File.ReadAt(buf, r.Position); err != nil {
			t.Errorf("ReadAt: %v", err)
			return 0, false
		}
		for p := 0; p < len(buf); {
			h, err := record.ParseBatchHeader(buf[p:])
			if err != nil || h.Size() > len(buf)-p {
				t.Errorf("torn or bad batch at byte %d of a %d-byte region: %v", p, len(buf), err)
				return 0, false
			}
			if err := record.VerifyCRC(buf[p : p+h.Size()]); err != nil {
				t.Errorf("batch at %d: %v", h.BaseOffset, err)
				return 0, false
			}
			// The first batch holds start, or comes after it when
			// retention removed start's segment during the read.
			switch {
			case next < 0 && (h.BaseOffset != info.FirstOffset || h.LastOffset() < start):
				t.Errorf("first batch [%d, %d] for a read at %d (FirstOffset %d)", h.BaseOffset, h.LastOffset(), start, info.FirstOffset)
				return 0, false
			case next >= 0 && h.BaseOffset != next:
				t.Errorf("batch at %d follows one ending at %d", h.BaseOffset, next)
				return 0, false
			case h.LastOffset() >= maxOff:
				t.Errorf("batch ending at %d reaches the bound %d", h.LastOffset(), maxOff)
				return 0, false
			}
			next = h.NextOffset()
			p += h.Size()
		}
		total += r.Size
	}
	if total != info.Size {
		t.Errorf("regions hold %d bytes, Size says %d", total, info.Size)
		return 0, false
	}
	return next, true
}
