package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kafgo/broker/record"
)

// TestCleanerKeepsLatestPerKey: for every codec, a pass leaves in the
// closed segments exactly the latest record of each key, at its original
// offset, merges small segments, leaves the active segment alone, and the
// result reads the same after a clean and an unclean reopen.
func TestCleanerKeepsLatestPerKey(t *testing.T) {
	for _, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			dir := partDir(t)
			cfg := compactConfig(2048)
			l := openTestLog(t, dir, cfg, OpenOptions{})
			fillUpdates(t, l, codec, 1200, 37, 6, 1_000_000)
			_, before := logRecords(t, l)
			segsBefore, end, leo := l.NumSegments(), closedEnd(l), l.LogEndOffset()
			res := cleanTestLog(t, l, 0, 1<<20)
			if res.checkpoint != end {
				t.Fatalf("checkpoint %d, want the active segment's base %d", res.checkpoint, end)
			}
			_, after := logRecords(t, l)
			expectCompacted(t, before, after, end)
			// Full sources each fill a destination; the next pass merges the
			// small results.
			if l.NumSegments() > segsBefore {
				t.Fatalf("%d segments after the first pass, %d before", l.NumSegments(), segsBefore)
			}
			res = cleanTestLog(t, l, res.checkpoint, 1<<20)
			if l.NumSegments() > 3 {
				t.Fatalf("%d segments after the second pass, %d before: small segments not merged", l.NumSegments(), segsBefore)
			}
			if _, again := logRecords(t, l); !slices.Equal(again, after) {
				t.Fatalf("second pass changed the records: %v", clip(again))
			}
			for i, s := range l.segments() {
				if s.size.Load() > cfg.SegmentBytes {
					t.Fatalf("segment %d is %d bytes, above segment.bytes %d", i, s.size.Load(), cfg.SegmentBytes)
				}
			}
			if l.LogEndOffset() != leo || closedEnd(l) != end {
				t.Fatalf("log end %d active base %d, want %d %d", l.LogEndOffset(), closedEnd(l), leo, end)
			}
			// The log keeps working: appends, then cleaning again changes
			// nothing below the old end except what the new data replaces.
			fillUpdates(t, l, codec, 30, 37, 6, 2_000_000)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			for _, clean := range []bool{true, false} {
				l2 := openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: clean})
				_, reread := logRecords(t, l2)
				below, _ := splitAt(reread, leo)
				if !slices.Equal(below, after) {
					t.Fatalf("clean=%v reopen reads %d records below %d, want %d", clean, len(below), leo, len(after))
				}
				if err := l2.Close(); err != nil {
					t.Fatal(err)
				}
			}
			assertNoTempFiles(t, dir)
		})
	}
}

// assertNoTempFiles: no .cleaned or .swap file stays behind.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), cleanedSuffix) || strings.HasSuffix(e.Name(), swapSuffix) {
			t.Fatalf("%s left in %s", e.Name(), dir)
		}
	}
}

// TestCleanerTombstoneLifecycle: a tombstone survives the pass that first
// cleans it (which drops every older record of its key) and every pass
// before delete.retention.ms has passed since, on a fake clock; the first
// pass after that drops it.
func TestCleanerTombstoneLifecycle(t *testing.T) {
	clock := newFakeClock(1_700_000_000_000)
	cfg := compactConfig(1 << 20)
	cfg.DeleteRetentionMs = 1000
	l := openTestLog(t, partDir(t), cfg, OpenOptions{Clock: clock.Now})
	defer l.Close()
	ts := clock.Now().UnixMilli()
	mustAppend(t, l, keyedBatch(t, record.CodecNone, ts, kv("a", "1"), kv("b", "1"), kv("c", "1")), 0)
	mustAppend(t, l, keyedBatch(t, record.CodecGzip, ts, kv("b", "2"), tomb("b"), kv("a", "2")), 0)
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	live := func() []string {
		_, recs := logRecords(t, l)
		var out []string
		for _, r := range recs {
			out = append(out, r.key+"="+r.val)
		}
		return out
	}
	t0 := clock.Now().UnixMilli()
	res := cleanTestLog(t, l, 0, 1<<20)
	if want := []string{"c=1", "b=<nil>", "a=2"}; !slices.Equal(live(), want) {
		t.Fatalf("after the first pass %v, want %v", live(), want)
	}
	if res.horizon != t0+1000 {
		t.Fatalf("pending horizon %d, want %d", res.horizon, t0+1000)
	}
	for _, step := range []struct {
		advance time.Duration
		want    []string
		horizon int64
	}{
		{999 * time.Millisecond, []string{"c=1", "b=<nil>", "a=2"}, t0 + 1000},
		{time.Millisecond, []string{"c=1", "a=2"}, noHorizon},
		{time.Hour, []string{"c=1", "a=2"}, noHorizon},
	} {
		clock.Advance(step.advance)
		res = cleanTestLog(t, l, res.checkpoint, 1<<20)
		if got := live(); !slices.Equal(got, step.want) {
			t.Fatalf("at +%v: %v, want %v", clock.Now().UnixMilli()-t0, got, step.want)
		}
		if res.horizon != step.horizon {
			t.Fatalf("at +%v: pending horizon %d, want %d", clock.Now().UnixMilli()-t0, res.horizon, step.horizon)
		}
	}
	// Offsets did not move, and the log end is where it was.
	_, recs := logRecords(t, l)
	if recs[0].off != 2 || recs[1].off != 5 || l.LogEndOffset() != 6 {
		t.Fatalf("records %v, log end %d", recs, l.LogEndOffset())
	}
}

// TestCleanerKeepsProducerState: when every record of an idempotent
// producer's last batch is superseded, the batch stays as an empty batch,
// so a log reloaded from scratch still knows the producer's last sequence
// and still rejects a retry of that batch as a duplicate.
func TestCleanerKeepsProducerState(t *testing.T) {
	dir := partDir(t)
	cfg := compactConfig(1 << 20)
	l := openTestLog(t, dir, cfg, OpenOptions{})
	idemBatch := func(seq int32, recs ...trec) []byte {
		b := record.NewBuilder(0, record.CodecLZ4)
		b.SetProducer(42, 3, seq)
		for _, r := range recs {
			b.Append(1000, r.key, r.val, nil)
		}
		out, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mustAppend(t, l, idemBatch(0, kv("x", "p0"), kv("y", "p0")), 0)
	last := idemBatch(2, kv("x", "p1"), kv("y", "p1"))
	lastInfo := mustAppend(t, l, last, 0)
	mustAppend(t, l, keyedBatch(t, record.CodecNone, 2000, kv("x", "other"), kv("y", "other")), 0)
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	cleanTestLog(t, l, 0, 1<<20)
	hs, recs := logRecords(t, l)
	if len(recs) != 2 || recs[0].val != "other" {
		t.Fatalf("records %v", recs)
	}
	if len(hs) != 2 || hs[0].RecordCount != 0 || hs[0].ProducerID != 42 || hs[0].BaseSequence != 2 ||
		hs[0].BaseOffset != lastInfo.FirstOffset || hs[0].LastOffset() != lastInfo.LastOffset {
		t.Fatalf("batches %+v: want the producer's last batch kept empty", hs)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "*"+snapshotExt))
	for _, s := range snaps {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	l = openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()
	ps, ok := l.Producers().Producer(42)
	if !ok || ps.LastSequence() != 3 || ps.LastOffset() != lastInfo.LastOffset || ps.Epoch != 3 {
		t.Fatalf("producer state after reload: %+v, %v", ps, ok)
	}
	info, err := l.AppendAsLeader(last, 0)
	if err != nil || !info.Duplicate || info.LastOffset != lastInfo.LastOffset {
		t.Fatalf("retry of the last batch: %+v, %v; want a duplicate", info, err)
	}
}

// TestCleanerBounds: a pass never maps or rewrites anything from the first
// uncleanable offset on: the high watermark, the first segment younger than
// min.compaction.lag.ms, and always the active segment.
func TestCleanerBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(l *Log, clock *fakeClock) (bound int64)
	}{
		{"active segment", func(l *Log, _ *fakeClock) int64 { return closedEnd(l) }},
		{"high watermark", func(l *Log, _ *fakeClock) int64 {
			hw := l.SegmentBaseOffsets()[3] + 3 // inside a segment, at a batch boundary
			l.SetHighWatermark(hw)
			return hw
		}},
		{"min compaction lag", func(l *Log, clock *fakeClock) int64 {
			cfg := l.Config()
			cfg.MinCompactionLagMs = 60_000
			l.UpdateConfig(cfg)
			// The first segment holding a record younger than the lag.
			for _, s := range l.segments() {
				if s.largestTimestamp() > clock.Now().UnixMilli()-60_000 {
					return s.base
				}
			}
			return -1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock(10_000_000)
			cfg := compactConfig(400)
			l := openTestLog(t, partDir(t), cfg, OpenOptions{Clock: clock.Now})
			defer l.Close()
			// Batches of 3 records (one batch per 3 offsets); 10 minutes
			// of timestamps for the first 60 records, then "now".
			for i := 0; i < 150; i += 3 {
				ts := int64(9_000_000 + i)
				if i >= 60 {
					ts = clock.Now().UnixMilli() - 1000
				}
				mustAppend(t, l, keyedBatch(t, record.CodecNone, ts, kv(fmt.Sprintf("k%d", i%4), "v"), kv(fmt.Sprintf("k%d", (i+1)%4), "v"), kv(fmt.Sprintf("k%d", (i+2)%4), "v")), 0)
			}
			if l.NumSegments() < 6 {
				t.Fatalf("only %d segments", l.NumSegments())
			}
			bound := tc.setup(l, clock)
			if bound <= 0 || bound >= closedEnd(l) && tc.name != "active segment" {
				t.Fatalf("bound %d does not fall inside the closed segments (active at %d)", bound, closedEnd(l))
			}
			_, before := logRecords(t, l)
			res := cleanTestLog(t, l, 0, 1<<20)
			if res.checkpoint != bound {
				t.Fatalf("checkpoint %d, want the bound %d", res.checkpoint, bound)
			}
			_, after := logRecords(t, l)
			expectCompacted(t, before, after, bound)
		})
	}
}

// TestCleanerSmallMapConverges: with a map too small for the dirty keys a
// pass stops early, at a batch boundary, and later passes finish the job
// with the same result one big pass gives; a map that cannot hold one
// batch is an error, with the log unchanged.
func TestCleanerSmallMapConverges(t *testing.T) {
	cfg := compactConfig(4096)
	build := func() *Log {
		l := openTestLog(t, partDir(t), cfg, OpenOptions{})
		t.Cleanup(func() { l.Close() })
		fillUpdates(t, l, record.CodecNone, 2000, 200, 10, 1)
		return l
	}
	l := build()
	_, before := logRecords(t, l)
	end := closedEnd(l)
	checkpoint, passes := int64(0), 0
	for checkpoint < end {
		res := cleanTestLog(t, l, checkpoint, 60*offsetMapSlotBytes) // about 54 keys per pass
		if res.checkpoint <= checkpoint {
			t.Fatalf("pass %d made no progress from %d", passes, checkpoint)
		}
		checkpoint = res.checkpoint
		passes++
	}
	if passes < 3 {
		t.Fatalf("%d passes: the map was not the limit", passes)
	}
	_, after := logRecords(t, l)
	expectCompacted(t, before, after, end)

	l2 := build()
	_, before2 := logRecords(t, l2)
	_, err := l2.clean(t.Context(), cleanParams{firstDirty: 0, om: newOffsetMap(2*offsetMapSlotBytes, 0.9), writeBuf: 4096})
	if !errors.Is(err, errMapTooSmall) {
		t.Fatalf("clean with a one-key map: %v, want errMapTooSmall", err)
	}
	if _, after2 := logRecords(t, l2); !slices.Equal(after2, before2) {
		t.Fatal("a failed pass changed the log")
	}
}

// TestCleanerGroupFits checks the rule that lets one more source join a
// destination segment: its bytes within segment.bytes, the entries of each
// index within segment.index.bytes, its offsets within 31 bits of the
// destination's base unless it is empty.
func TestCleanerGroupFits(t *testing.T) {
	const big = int64(1) << 31
	cfg := compactConfig(1000)
	cfg.SegmentIndexBytes = 120
	cases := []struct {
		name            string
		srcSize         int64
		srcIdx, srcTidx int64
		upper, base     int64
		size, idx, tidx int64
		want            bool
	}{
		{"fits", 400, 2, 2, 100, 0, 500, 3, 3, true},
		{"exactly segment.bytes", 500, 0, 0, 100, 0, 500, 0, 0, true},
		{"one byte over segment.bytes", 501, 0, 0, 100, 0, 500, 0, 0, false},
		{"offset index full", 1, 8, 0, 100, 0, 0, 8, 0, false},
		{"offset index exactly full", 1, 7, 0, 100, 0, 0, 8, 0, true},
		{"time index full", 1, 0, 6, 100, 0, 0, 0, 5, false},
		{"offsets beyond 31 bits", 1, 0, 0, big + 1, 0, 0, 0, 0, false},
		{"offsets at the 31-bit limit", 1, 0, 0, big, 0, 0, 0, 0, true},
		{"empty source beyond 31 bits", 0, 0, 0, big + 100, 0, 0, 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &segment{base: tc.base + 10, offIdx: &offsetIndex{indexFile: &indexFile{}}, timeIdx: &timeIndex{indexFile: &indexFile{}}}
			s.size.Store(tc.srcSize)
			s.offIdx.n.Store(tc.srcIdx)
			s.timeIdx.n.Store(tc.srcTidx)
			if got := groupFits(s, tc.upper, &cfg, tc.base, tc.size, tc.idx, tc.tidx); got != tc.want {
				t.Fatalf("groupFits = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCleanerMergesSmallSegments: segments that shrink when cleaned go
// into one destination in the same pass, within segment.bytes.
func TestCleanerMergesSmallSegments(t *testing.T) {
	cfg := compactConfig(4096)
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	for i := 0; i < 12; i++ {
		fillUpdates(t, l, record.CodecNone, 40, 5, 5, int64(i))
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	_, before := logRecords(t, l)
	res := cleanTestLog(t, l, 0, 1<<20)
	if res.stats.Segments != 12 || res.stats.Groups != 1 || l.NumSegments() != 2 {
		t.Fatalf("%d sources into %d destinations, %d segments now; want 12 into 1", res.stats.Segments, res.stats.Groups, l.NumSegments())
	}
	_, after := logRecords(t, l)
	expectCompacted(t, before, after, closedEnd(l))
}
