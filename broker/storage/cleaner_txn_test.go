package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kafgo/broker/record"
)

func withTxn(pid int64, seq int32) func(*record.Builder) {
	return func(b *record.Builder) {
		b.SetProducer(pid, 0, seq)
		b.SetTransactional(true)
	}
}

// cleanedView summarises a log for the cleaner tests: data records as
// "off:key=val", empty batches as "off:empty", markers as "off:COMMIT" or
// "off:ABORT" with "+h" when they carry a delete horizon.
func cleanedView(t *testing.T, l *Log) []string {
	t.Helper()
	var out []string
	for _, raw := range readAllUnchecked(t, l) {
		h, err := record.ParseBatchHeader(raw)
		if err != nil {
			t.Fatal(err)
		}
		if h.RecordCount == 0 {
			out = append(out, fmt.Sprintf("%d:empty", h.BaseOffset))
			continue
		}
		if h.IsControl() {
			typ, _, _, err := record.ReadEndTxnMarker(raw)
			if err != nil {
				t.Fatal(err)
			}
			s := fmt.Sprintf("%d:%s", h.BaseOffset, typ)
			if _, ok := h.DeleteHorizon(); ok {
				s += "+h"
			}
			out = append(out, s)
			continue
		}
		_, recs := decodeBatches(t, raw)
		for _, r := range recs {
			out = append(out, fmt.Sprintf("%d:%s=%s", r.off, r.key, r.val))
		}
	}
	return out
}

// txnCleanFixture writes two closed segments of committed and aborted
// transactions of producers 1-3 and an active one, on a compacted log.
func txnCleanFixture(t *testing.T, dir string, clk *fakeClock) *Log {
	t.Helper()
	cfg := compactConfig(1 << 20)
	cfg.FileDeleteDelayMs = 60_000 // .deleted files stay for the crash copies
	l := openTestLog(t, dir, cfg, OpenOptions{Clock: clk.Now})
	ts := int64(9_000)
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, ts, []trec{kv("a", "a0")}), 0)                               // 0
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, ts, []trec{kv("a", "a1"), kv("b", "b1")}, withTxn(1, 0)), 0) // 1-2
	mustMarker(t, l, 1, 0, true, 0)                                                                               // 3
	mustAppend(t, l, batchAt(t, 0, record.CodecLZ4, ts, []trec{kv("a", "ax"), kv("c", "cx")}, withTxn(2, 0)), 0)  // 4-5
	mustMarker(t, l, 2, 0, false, 0)                                                                              // 6
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, ts, []trec{kv("d", "d1")}, withTxn(3, 0)), 0) // 7
	mustMarker(t, l, 3, 0, false, 0)                                                               // 8
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, ts, []trec{kv("g", "g2")}, withTxn(2, 2)), 0) // 9
	mustMarker(t, l, 2, 0, true, 0)                                                                // 10
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, ts, []trec{kv("h", "h1")}), 0) // 11, active
	l.SetHighWatermark(l.LogEndOffset())
	return l
}

// TestCleanerTransactions: compaction drops the records of aborted
// transactions (which never shadow committed records of their keys in the
// map), keeps an aborted producer's last batch empty, keeps ABORT markers
// (and their index entries) while their transaction has data, then keeps a
// marker with nothing left for delete.retention.ms and drops it after; a
// COMMIT marker stays while its records do.
func TestCleanerTransactions(t *testing.T) {
	clk := newFakeClock(10_000)
	l := txnCleanFixture(t, partDir(t), clk)
	defer l.Close()
	index := activeTxnIndex(t, l)
	if len(index) != 2 {
		t.Fatalf("index before cleaning %+v", index)
	}

	res := cleanTestLog(t, l, 0, 1<<20)
	want := []string{"1:a=a1", "2:b=b1", "3:COMMIT", "6:ABORT", "7:empty", "8:ABORT", "9:g=g2", "10:COMMIT", "11:h=h1"}
	if got := cleanedView(t, l); !slices.Equal(got, want) {
		t.Fatalf("after the first pass\n got %v\nwant %v", got, want)
	}
	if got := activeTxnIndex(t, l); !slices.Equal(got, index) {
		t.Fatalf("index after the first pass %+v, want %+v (both aborts still have data)", got, index)
	}

	// The aborted records are gone: producer 2's abort has nothing left to
	// cover, so its marker waits out delete.retention.ms, without an index
	// entry.
	res = cleanTestLog(t, l, res.checkpoint, 1<<20)
	want = []string{"1:a=a1", "2:b=b1", "3:COMMIT", "6:ABORT+h", "7:empty", "8:ABORT", "9:g=g2", "10:COMMIT", "11:h=h1"}
	if got := cleanedView(t, l); !slices.Equal(got, want) {
		t.Fatalf("after the second pass\n got %v\nwant %v", got, want)
	}
	if got := activeTxnIndex(t, l); !slices.Equal(got, index[1:]) {
		t.Fatalf("index after the second pass %+v, want %+v", got, index[1:])
	}
	if res.horizon != clk.Now().UnixMilli()+1000 {
		t.Fatalf("pending horizon %d, want now + delete.retention.ms", res.horizon)
	}
	clk.Advance(1500 * time.Millisecond)
	cleanTestLog(t, l, res.checkpoint, 1<<20)
	want = []string{"1:a=a1", "2:b=b1", "3:COMMIT", "7:empty", "8:ABORT", "9:g=g2", "10:COMMIT", "11:h=h1"}
	if got := cleanedView(t, l); !slices.Equal(got, want) {
		t.Fatalf("after the horizon\n got %v\nwant %v", got, want)
	}
	// A read_committed reader still learns that producer 3 aborted.
	if got, err := l.AbortedTransactions(7, 9); err != nil || len(got) != 1 || got[0].ProducerID != 3 {
		t.Fatalf("aborted transactions over [7, 9): %+v %v", got, err)
	}

}

// TestCleanerCrashKeepsTxnIndex copies the directory at each step of the
// swap of a pass that changes the transaction index, as a crash would
// leave it, and reopens it: before the commit the index is the old one,
// after it the cleaned one, never lost.
func TestCleanerCrashKeepsTxnIndex(t *testing.T) {
	stages := []string{"cleaned", "swap", "retired", "done", "txnindex rename interrupted"}
	for _, stage := range stages {
		t.Run(stage, func(t *testing.T) {
			clk := newFakeClock(10_000)
			l := txnCleanFixture(t, partDir(t), clk)
			defer l.Close()
			res := cleanTestLog(t, l, 0, 1<<20)
			before := activeTxnIndex(t, l)
			hook := stage
			if stage == "txnindex rename interrupted" {
				hook = "done"
			}
			crash := filepath.Join(t.TempDir(), "topic-0")
			cleanerStageHook = func(hl *Log, s string) {
				if hl == l && s == hook {
					copyDir(t, l.Dir(), crash)
				}
			}
			defer func() { cleanerStageHook = nil }()
			cleanTestLog(t, l, res.checkpoint, 1<<20)
			cleanerStageHook = nil
			after := activeTxnIndex(t, l)
			if slices.Equal(before, after) {
				t.Fatal("the second pass left the index as it was; the fixture is wrong")
			}
			want := after
			if stage == "cleaned" {
				want = before
			}
			if stage == "txnindex rename interrupted" {
				// The .log took its final name, the index did not yet.
				p := segmentPath(crash, 0, txnIndexExt)
				if err := os.Rename(p, p+swapSuffix); err != nil {
					t.Fatal(err)
				}
			}
			for _, opt := range []OpenOptions{{CleanShutdown: true}, {RecoveryPoint: l.LogEndOffset()}} {
				dir := filepath.Join(t.TempDir(), "topic-0")
				copyDir(t, crash, dir)
				opt.Clock = clk.Now
				r := openTestLog(t, dir, compactConfig(1<<20), opt)
				got := activeTxnIndex(t, r)
				r.Close()
				if !slices.Equal(got, want) {
					t.Fatalf("reopened (clean %v): index %+v, want %+v", opt.CleanShutdown, got, want)
				}
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.HasSuffix(e.Name(), swapSuffix) || strings.HasSuffix(e.Name(), cleanedSuffix) {
						t.Fatalf("%s left behind", e.Name())
					}
				}
			}
		})
	}
}

// TestCleanerStopsAtLastStableOffset: records of an open transaction, and
// everything after them, are not cleaned.
func TestCleanerStopsAtLastStableOffset(t *testing.T) {
	l := openTestLog(t, partDir(t), compactConfig(1<<20), OpenOptions{Clock: newFakeClock(10_000).Now})
	defer l.Close()
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, 9000, []trec{kv("a", "1")}), 0)                // 0
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, 9000, []trec{kv("a", "2")}), 0)                // 1
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, 9000, []trec{kv("b", "x")}, withTxn(5, 0)), 0) // 2, open
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, 9000, []trec{kv("a", "3")}), 0)                // 3
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, batchAt(t, 0, record.CodecNone, 9000, []trec{kv("z", "z")}), 0)
	l.SetHighWatermark(l.LogEndOffset())
	res := cleanTestLog(t, l, 0, 1<<20)
	if res.checkpoint != 2 {
		t.Fatalf("cleaned up to %d, want the LSO 2", res.checkpoint)
	}
	got := strings.Join(cleanedView(t, l), " ")
	if want := "1:a=2 2:b=x 3:a=3 4:z=z"; got != want {
		t.Fatalf("log %q, want %q", got, want)
	}
}
