package storage

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

// step is one leader append of one idempotent batch.
type step struct {
	pid     int64
	epoch   int16
	seq     int32
	records int
	wantErr error
	wantDup int64 // first offset of the original batch for a duplicate, -1 otherwise
}

func TestProducerStateRules(t *testing.T) {
	ok := func(pid int64, e int16, seq int32, n int) step { return step{pid, e, seq, n, nil, -1} }
	tests := []struct {
		name  string
		steps []step
	}{
		{"new producer starts at 0", []step{ok(1, 0, 0, 3), ok(1, 0, 3, 2)}},
		{"unknown producer with seq != 0", []step{{1, 0, 5, 1, ErrUnknownProducerID, -1}}},
		{"gap in sequence", []step{ok(1, 0, 0, 3), {1, 0, 4, 1, ErrOutOfOrderSequence, -1}}},
		{"sequence going back but not a duplicate", []step{ok(1, 0, 0, 3), ok(1, 0, 3, 3), {1, 0, 1, 3, ErrOutOfOrderSequence, -1}}},
		{"duplicate of the last batch", []step{ok(1, 0, 0, 3), {1, 0, 0, 3, nil, 0}}},
		{"duplicate of an older retained batch", []step{ok(1, 0, 0, 1), ok(1, 0, 1, 1), ok(1, 0, 2, 1), {1, 0, 1, 1, nil, 1}}},
		{"only five batches are retained", []step{
			ok(1, 0, 0, 1), ok(1, 0, 1, 1), ok(1, 0, 2, 1), ok(1, 0, 3, 1), ok(1, 0, 4, 1), ok(1, 0, 5, 1),
			{1, 0, 1, 1, nil, 1}, {1, 0, 0, 1, ErrOutOfOrderSequence, -1},
		}},
		{"older epoch is fenced", []step{ok(1, 2, 0, 1), {1, 1, 1, 1, ErrInvalidProducerEpoch, -1}}},
		{"newer epoch must start at 0", []step{ok(1, 0, 0, 1), {1, 1, 1, 1, ErrOutOfOrderSequence, -1}, ok(1, 1, 0, 1)}},
		{"newer epoch resets the dedup window", []step{ok(1, 0, 0, 1), ok(1, 1, 0, 1), {1, 0, 0, 1, ErrInvalidProducerEpoch, -1}}},
		{"producers are independent", []step{ok(1, 0, 0, 2), ok(2, 0, 0, 2), ok(1, 0, 2, 1), {2, 0, 3, 1, ErrOutOfOrderSequence, -1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
			defer l.Close()
			for i, s := range tc.steps {
				leo := l.LogEndOffset()
				info, err := l.AppendAsLeader(idem(s.pid, s.epoch, s.seq, s.records).bytes(), 0)
				if !errors.Is(err, s.wantErr) {
					t.Fatalf("step %d: err %v, want %v", i, err, s.wantErr)
				}
				switch {
				case err != nil:
					if l.LogEndOffset() != leo {
						t.Fatalf("step %d: failed append moved the log end", i)
					}
				case s.wantDup >= 0:
					if !info.Duplicate || info.FirstOffset != s.wantDup || l.LogEndOffset() != leo {
						t.Fatalf("step %d: %+v, want duplicate of offset %d with nothing appended", i, info, s.wantDup)
					}
				default:
					if info.Duplicate || info.FirstOffset != leo {
						t.Fatalf("step %d: %+v, want appended at %d", i, info, leo)
					}
				}
			}
		})
	}
}

func TestProducerSequenceWrap(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	// A follower append seeds state near the wrap without validation.
	b := idem(5, 0, math.MaxInt32-1, 2) // sequences MaxInt32-1, MaxInt32
	if _, err := l.AppendAsFollower(b.bytes()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendAsLeader(idem(5, 0, 1, 1).bytes(), 0); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Errorf("after MaxInt32 comes 0, not 1: %v", err)
	}
	if _, err := l.AppendAsLeader(idem(5, 0, 0, 1).bytes(), 0); err != nil {
		t.Errorf("wrap to 0: %v", err)
	}
}

// A multi-batch append is all-or-nothing for producer checks, and later
// batches of the same append are checked against earlier ones.
func TestProducerMultiBatchAppend(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	good := concat(idem(1, 0, 0, 2).bytes(), idem(1, 0, 2, 2).bytes(), plain(1, 5, 1).bytes())
	if info, err := l.AppendAsLeader(good, 0); err != nil || info.NumBatches != 3 || info.LastOffset != 4 {
		t.Fatalf("%+v, %v", info, err)
	}
	bad := concat(idem(1, 0, 4, 1).bytes(), idem(2, 0, 0, 1).bytes(), idem(1, 0, 9, 1).bytes())
	if _, err := l.AppendAsLeader(bad, 0); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("err %v", err)
	}
	if l.LogEndOffset() != 5 {
		t.Fatalf("log end %d after a rejected append", l.LogEndOffset())
	}
	if _, ok := l.Producers().Producer(2); ok {
		t.Error("producer 2 of a rejected append has state")
	}
	if p, _ := l.Producers().Producer(1); p.LastSequence() != 3 {
		t.Errorf("producer 1 last sequence %d, want 3", p.LastSequence())
	}
}

// Followers record state without validation; the state serves a later
// leader.
func TestProducerFollowerNoValidation(t *testing.T) {
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
	defer l.Close()
	b := idem(3, 2, 40, 2)
	if _, err := l.AppendAsFollower(b.bytes()); err != nil {
		t.Fatal(err)
	}
	b = idem(3, 1, 7, 1) // older epoch, gap: followers take it
	b.base = 2
	if _, err := l.AppendAsFollower(b.bytes()); err != nil {
		t.Fatal(err)
	}
	p, _ := l.Producers().Producer(3)
	if p.Epoch != 1 || p.LastSequence() != 7 {
		t.Errorf("follower state %+v", p)
	}
}

// Producer state survives restarts: clean (from the snapshot at the log
// end) and unclean (snapshot below the recovery point plus replay).
func TestProducerStateSurvivesRestart(t *testing.T) {
	for _, clean := range []bool{true, false} {
		name := "unclean"
		if clean {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			cfg := testConfig()
			cfg.SegmentBytes = 300
			dir := partDir(t)
			l := openTestLog(t, dir, cfg, OpenOptions{})
			seq := int32(0)
			for i := 0; i < 8; i++ {
				mustAppend(t, l, idem(42, 3, seq, 2).bytes(), 0)
				seq += 2
			}
			if l.NumSegments() < 3 {
				t.Fatalf("%d segments", l.NumSegments())
			}
			leo := l.LogEndOffset()
			opt := OpenOptions{CleanShutdown: true}
			if clean {
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				// Crash: copy the directory as the page cache has it, with
				// no close and a recovery point from the last checkpoint.
				crash := filepath.Join(t.TempDir(), "topic-0")
				testwait.Until(t, 5*time.Second, "roll flushes", func() bool { return l.RecoveryPoint() > 0 })
				copyDir(t, dir, crash)
				opt = OpenOptions{RecoveryPoint: l.RecoveryPoint()}
				l.Close()
				dir = crash
				// Snapshots above the recovery point cannot be trusted after a
				// crash; leave a bogus one there to prove it is not used.
				os.WriteFile(filepath.Join(dir, offsetFileName(leo, snapshotExt)), encodeProducerSnapshot(nil), 0o644)
			}
			l2 := openTestLog(t, dir, cfg, opt)
			defer l2.Close()
			p, ok := l2.Producers().Producer(42)
			if !ok || p.Epoch != 3 || p.LastSequence() != 15 || p.LastOffset() != leo-1 {
				t.Fatalf("producer after restart: %+v (known %v)", p, ok)
			}
			info, err := l2.AppendAsLeader(idem(42, 3, 14, 2).bytes(), 0)
			if err != nil || !info.Duplicate || info.FirstOffset != leo-2 {
				t.Errorf("retry of the last batch: %+v, %v; want duplicate at %d", info, err, leo-2)
			}
			if _, err := l2.AppendAsLeader(idem(42, 3, 17, 1).bytes(), 0); !errors.Is(err, ErrOutOfOrderSequence) {
				t.Errorf("gap after restart: %v", err)
			}
			if info, err := l2.AppendAsLeader(idem(42, 3, 16, 1).bytes(), 0); err != nil || info.FirstOffset != leo {
				t.Errorf("next batch after restart: %+v, %v", info, err)
			}
		})
	}
}

func TestProducerSnapshotRoundTrip(t *testing.T) {
	in := []ProducerState{
		{ProducerID: 1, Epoch: 2, Batches: []ProducerBatch{{FirstSeq: 10, LastSeq: 14, FirstOffset: 100, LastOffset: 104, Timestamp: 77}}, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1, LastTimestamp: 77},
		{ProducerID: 9, Epoch: 0, CoordinatorEpoch: 5, CurrentTxnFirstOffset: 50, LastTimestamp: 3},
		{ProducerID: 3, Epoch: 1, Batches: []ProducerBatch{{FirstSeq: math.MaxInt32 - 1, LastSeq: 1, FirstOffset: 10, LastOffset: 13, Timestamp: 8}}, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1, LastTimestamp: 8},
	}
	path := filepath.Join(t.TempDir(), "00000000000000000200.snapshot")
	if err := WriteProducerSnapshot(path, in); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if len(data) != snapshotHeaderSize+3*snapshotEntrySize {
		t.Fatalf("snapshot is %d bytes", len(data))
	}
	out, err := ReadProducerSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		a, b := in[i], out[i]
		if a.ProducerID != b.ProducerID || a.Epoch != b.Epoch || a.CoordinatorEpoch != b.CoordinatorEpoch ||
			a.CurrentTxnFirstOffset != b.CurrentTxnFirstOffset || a.LastTimestamp != b.LastTimestamp || len(a.Batches) != len(b.Batches) {
			t.Fatalf("entry %d: %+v, want %+v", i, b, a)
		}
		if len(a.Batches) > 0 && a.Batches[0] != b.Batches[0] {
			t.Errorf("entry %d batch: %+v, want %+v", i, b.Batches[0], a.Batches[0])
		}
	}
	for _, bad := range []struct {
		name string
		mut  func([]byte) []byte
	}{
		{"short", func(b []byte) []byte { return b[:5] }},
		{"version", func(b []byte) []byte { b[1] = 2; return b }},
		{"crc", func(b []byte) []byte { b[20] ^= 1; return b }},
		{"truncated entries", func(b []byte) []byte { return b[:len(b)-1] }},
	} {
		t.Run(bad.name, func(t *testing.T) {
			d := bad.mut(append([]byte(nil), data...))
			if _, err := decodeProducerSnapshot("x", d); !errors.Is(err, ErrCorruptFile) {
				t.Errorf("err %v, want ErrCorruptFile", err)
			}
		})
	}
}
