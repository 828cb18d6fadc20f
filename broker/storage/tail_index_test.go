package storage

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestTailIndexAnswersAsTheFiles: after random appends of batches of many
// sizes (leader and follower, with offset gaps), rolls and truncations,
// every read and position the tail index answers is the one the index
// files and batch headers give.
func TestTailIndexAnswersAsTheFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := testConfig()
	cfg.SegmentBytes = 64 << 10
	cfg.IndexIntervalBytes = 1 << 10
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	compare := func(step int) {
		t.Helper()
		ls, leo := l.LogStartOffset(), l.LogEndOffset()
		for range 40 {
			start := ls + rng.Int64N(leo-ls+1)
			maxBytes := int32(rng.IntN(3000))
			maxOffset := start + rng.Int64N(leo-start+2)
			minOne := rng.IntN(2) == 0
			fast, fastUpper, ferr := l.read(start, maxBytes, maxOffset, minOne, true)
			tailIndexOff.Store(true)
			slow, slowUpper, serr := l.read(start, maxBytes, maxOffset, minOne, true)
			fastPos, fok := l.PositionOf(start)
			tailIndexOff.Store(false)
			slowPos, sok := func() (OffsetPosition, bool) {
				tailIndexOff.Store(true)
				defer tailIndexOff.Store(false)
				return l.PositionOf(start)
			}()
			// Each read pins its own descriptor: compare the rest.
			fast.Release()
			slow.Release()
			for i := range fast.Regions {
				fast.Regions[i].hold = nil
			}
			for i := range slow.Regions {
				slow.Regions[i].hold = nil
			}
			if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) || fastUpper != slowUpper {
				t.Fatalf("step %d: read(%d, %d, %d, %v): tail %+v upper %d err %v; files %+v upper %d err %v",
					step, start, maxBytes, maxOffset, minOne, fast, fastUpper, ferr, slow, slowUpper, serr)
			}
			if fok != sok || fastPos != slowPos {
				t.Fatalf("step %d: PositionOf(%d): tail %+v %v; files %+v %v", step, start, fastPos, fok, slowPos, sok)
			}
		}
	}
	for step := range 400 {
		switch r := rng.IntN(100); {
		case r < 80:
			b := plain(1+rng.IntN(5), rng.IntN(600), 1000).bytes()
			mustAppend(t, l, b, 0)
		case r < 88:
			// A follower's batch after a gap (compacted on the leader).
			tb := plain(1+rng.IntN(3), rng.IntN(300), 1000)
			tb.base = l.LogEndOffset() + 1 + rng.Int64N(5)
			if _, err := l.AppendAsFollower(tb.bytes()); err != nil {
				t.Fatal(err)
			}
		case r < 93:
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		default:
			leo := l.LogEndOffset()
			if leo > 0 {
				if err := l.TruncateTo(leo - 1 - rng.Int64N(min(leo, 20))); err != nil {
					t.Fatal(err)
				}
			}
		}
		compare(step)
	}
}
