package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kafgo/broker/record"
)

// crashFixture writes a compacted log of segsPerGroup*groups closed
// segments; one record in dupEvery has one of 17 keys, the others unique
// keys. The last closed segment holds only a keyless batch, which cleaning
// drops, so the last destination ends with an empty tail batch.
func crashFixture(t *testing.T, dir string, segsPerGroup, groups int, dupEvery int) (*Log, LogConfig) {
	t.Helper()
	cfg := compactConfig(1 << 20)
	cfg.FileDeleteDelayMs = 60_000 // .deleted files stay for the whole test
	l := openTestLog(t, dir, cfg, OpenOptions{})
	n := 0
	for s := 0; s < segsPerGroup*groups-1; s++ {
		for b := 0; b < 4; b++ {
			var recs []trec
			for r := 0; r < 5; r++ {
				key := fmt.Sprintf("u%d", n) // unique
				if n%dupEvery == 0 {
					key = fmt.Sprintf("k%d", n%17)
				}
				recs = append(recs, kv(key, fmt.Sprintf("v%d", n)))
				n++
			}
			mustAppend(t, l, keyedBatch(t, record.CodecSnappy, int64(1000+n), recs...), 0)
		}
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, l, keyedBatch(t, record.CodecNone, 5000, keyless("no key")), 0)
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, keyedBatch(t, record.CodecNone, 6000, kv("k1", "active")), 0)
	// Size segment.bytes so that segsPerGroup sources fit a group when few
	// records go (dupEvery large), and all of them when most go.
	var first, largest int64
	for i, s := range l.segments()[:l.NumSegments()-1] {
		if i < segsPerGroup {
			first += s.size.Load()
		}
		largest = max(largest, s.size.Load())
	}
	cfg.SegmentBytes = first + largest/3
	l.UpdateConfig(cfg)
	return l, cfg
}

// TestCleanerCrashRecovery copies the partition directory at each step of a
// swap, as a crash of the process would leave it, and reopens the copy
// cleanly and uncleanly: before the commit (.cleaned files) the log reads
// as before the pass, after it (.swap, then .deleted sources, then final
// names) as after the pass; nothing temporary stays behind, and the log
// goes on working.
func TestCleanerCrashRecovery(t *testing.T) {
	for _, stage := range []string{"cleaned", "swap", "retired", "done"} {
		t.Run(stage, func(t *testing.T) {
			l, cfg := crashFixture(t, partDir(t), 6, 1, 1)
			defer l.Close()
			_, before := logRecords(t, l)
			crash := filepath.Join(t.TempDir(), "crash")
			copied := 0
			cleanerStageHook = func(hl *Log, s string) {
				if hl == l && s == stage {
					copyDir(t, l.Dir(), crash)
					copied++
				}
			}
			defer func() { cleanerStageHook = nil }()
			cleanTestLog(t, l, 0, 1<<20)
			cleanerStageHook = nil
			if copied != 1 {
				t.Fatalf("stage %s seen %d times, want once (one group)", stage, copied)
			}
			_, after := logRecords(t, l)
			if slices.Equal(before, after) {
				t.Fatal("the pass changed nothing; the fixture is wrong")
			}
			want := after
			if stage == "cleaned" {
				want = before
			}
			leo := l.LogEndOffset()
			type openMode struct {
				name string
				opt  OpenOptions
			}
			modes := []openMode{
				{"clean", OpenOptions{CleanShutdown: true}},
				{"unclean from the end", OpenOptions{RecoveryPoint: leo}},
				{"unclean from zero", OpenOptions{RecoveryPoint: 0}},
			}
			if stage == "done" {
				modes = append(modes, openMode{"index renames interrupted", OpenOptions{CleanShutdown: true}})
			}
			for _, mode := range modes {
				t.Run(mode.name, func(t *testing.T) {
					dir := filepath.Join(t.TempDir(), "topic-0")
					copyDir(t, crash, dir)
					if mode.name == "index renames interrupted" {
						// The .log took its final name, its indexes did not.
						for _, ext := range []string{indexExt, timeIndexExt} {
							p := segmentPath(dir, 0, ext)
							if err := os.Rename(p, p+swapSuffix); err != nil {
								t.Fatal(err)
							}
						}
					}
					l2 := openTestLog(t, dir, cfg, mode.opt)
					defer l2.Close()
					_, got := logRecords(t, l2)
					if !slices.Equal(got, want) {
						t.Fatalf("reopened log reads %d records %v\nwant %d %v", len(got), clip(got), len(want), clip(want))
					}
					if l2.LogEndOffset() != leo {
						t.Fatalf("log end %d, want %d", l2.LogEndOffset(), leo)
					}
					assertNoTempFiles(t, dir)
					assertNoSuffix(t, dir, deletedSuffix)
					// The reopened log cleans and appends like any other.
					mustAppend(t, l2, keyedBatch(t, record.CodecNone, 7000, kv("k2", "later")), 0)
					cleanTestLog(t, l2, 0, 1<<20)
					_, again := logRecords(t, l2)
					if n := len(again); again[n-1].val != "later" || again[n-2].val != "active" {
						t.Fatalf("after reopening and cleaning again: %v", clip(again))
					}
				})
			}
		})
	}
}

// TestCleanerCrashBetweenGroups: a crash in the middle of a pass that
// writes several destination segments leaves some groups swapped and some
// not; whatever the step, the reopened log holds only records of the
// original log at their offsets, every latest record of each key, and no
// two segments claim the same offsets.
func TestCleanerCrashBetweenGroups(t *testing.T) {
	for _, tc := range []struct {
		stage string
		nth   int
	}{{"swap", 1}, {"retired", 2}, {"cleaned", 3}, {"swap", 3}, {"done", 2}} {
		t.Run(fmt.Sprintf("%s-%d", tc.stage, tc.nth), func(t *testing.T) {
			l, cfg := crashFixture(t, partDir(t), 3, 3, 10)
			defer l.Close()
			_, before := logRecords(t, l)
			crash := filepath.Join(t.TempDir(), "crash")
			seen := 0
			cleanerStageHook = func(hl *Log, s string) {
				if hl == l && s == tc.stage {
					if seen++; seen == tc.nth {
						copyDir(t, l.Dir(), crash)
					}
				}
			}
			defer func() { cleanerStageHook = nil }()
			res := cleanTestLog(t, l, 0, 1<<20)
			cleanerStageHook = nil
			if res.stats.Groups != 3 || seen != 3 {
				t.Fatalf("%d groups, stage seen %d times; want 3", res.stats.Groups, seen)
			}
			for _, clean := range []bool{true, false} {
				dir := filepath.Join(t.TempDir(), "topic-0")
				copyDir(t, crash, dir)
				l2 := openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: clean})
				_, got := logRecords(t, l2)
				l2.Close()
				if !isSubsequence(got, before) {
					t.Fatalf("clean=%v: reopened log holds records not in the original: %v", clean, clip(got))
				}
				if !slices.Equal(latestPerKey(got), latestPerKey(before)) {
					t.Fatalf("clean=%v: latest per key %v, want %v", clean, latestPerKey(got), latestPerKey(before))
				}
			}
		})
	}
}

// isSubsequence reports whether every record of sub appears in all, in
// the same order (so offsets increase and none is invented).
func isSubsequence(sub, all []logRec) bool {
	j := 0
	for _, r := range sub {
		for j < len(all) && all[j] != r {
			j++
		}
		if j == len(all) {
			return false
		}
		j++
	}
	return true
}

func assertNoSuffix(t *testing.T, dir, suffix string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			t.Fatalf("%s left in %s", e.Name(), dir)
		}
	}
}

// TestCleanerSwapRecoveryRemovesReplacedSegments: a .log.swap replaces the
// segments whose base lies in [its base, its next offset), and no others,
// on a hand-made directory.
func TestCleanerSwapRecoveryRemovesReplacedSegments(t *testing.T) {
	dir := partDir(t)
	cfg := compactConfig(1 << 20)
	l := openTestLog(t, dir, cfg, OpenOptions{})
	for i := 0; i < 4; i++ {
		mustAppend(t, l, keyedBatch(t, record.CodecNone, 1, kv("a", fmt.Sprint(i)), kv("b", fmt.Sprint(i))), 0)
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Segments at 0, 2, 4, 6 and the empty active one at 8. The swap
	// replaces 2 and 4: one batch with offsets 2..5 keeping only b@5.
	b := record.NewBuilder(2, record.CodecNone)
	b.Append(1, []byte("x"), []byte("y"), nil)
	b.Append(1, []byte("b"), []byte("3"), nil)
	raw, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Make it span 2..5 as a cleaned batch would (lastOffsetDelta 3).
	batch, err := record.ParseBatch(raw, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	batch.LastOffsetDelta = 3
	batch.Records = batch.Records[1:]
	batch.Records[0].OffsetDelta = 3
	swap, err := batch.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(segmentPath(dir, 2, logExt)+swapSuffix, swap, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(segmentPath(dir, 2, indexExt)+swapSuffix, []byte("garbage!"), 0o644); err != nil {
		t.Fatal(err)
	}
	l = openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: true})
	defer l.Close()
	if got := l.SegmentBaseOffsets(); !slices.Equal(got, []int64{0, 2, 6, 8}) {
		t.Fatalf("segments %v, want [0 2 6 8]", got)
	}
	_, recs := logRecords(t, l)
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s=%s", r.off, r.key, r.val))
	}
	if want := []string{"0:a=0", "1:b=0", "5:b=3", "6:a=3", "7:b=3"}; !slices.Equal(got, want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	assertNoTempFiles(t, dir)
}
