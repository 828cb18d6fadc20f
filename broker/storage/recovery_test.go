package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kafgo/broker/record"
)

// recoveryFixture writes a log of three segments; the last batch of the last
// segment is written in a new leader epoch by an idempotent producer, so its
// loss must also roll back the epoch cache and the producer state. It
// returns the closed log's directory, every batch written, and where the
// last batch starts in the last segment file.
func recoveryFixture(t *testing.T) (dir string, batches [][]byte, lastPos int64, lastBase int64) {
	t.Helper()
	dir = partDir(t)
	cfg := testConfig()
	cfg.SegmentBytes = 700
	cfg.IndexIntervalBytes = 150
	l := openTestLog(t, dir, cfg, OpenOptions{})
	if err := l.Epochs().Assign(1, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		b := plain(2, 60+5*i, int64(100+i)).bytes()
		mustAppend(t, l, b, 1)
		batches = append(batches, b)
	}
	lastBase = l.LogEndOffset()
	act := l.active()
	lastPos = act.size.Load()
	last := idem(77, 0, 0, 1).bytes()
	if err := l.Epochs().Assign(2, lastBase); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, last, 2)
	batches = append(batches, last)
	if l.NumSegments() < 3 {
		t.Fatalf("fixture has %d segments, want at least 3", l.NumSegments())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, batches, lastPos, lastBase
}

// checkRecovered opens dir uncleanly and checks the log holds exactly the
// batches before the damaged last one, then that appends continue.
func checkRecovered(t *testing.T, dir string, rp int64, batches [][]byte, lastBase int64) {
	t.Helper()
	cfg := testConfig()
	cfg.SegmentBytes = 700
	cfg.IndexIntervalBytes = 150
	l := openTestLog(t, dir, cfg, OpenOptions{RecoveryPoint: rp})
	defer l.Close()
	if got := l.LogEndOffset(); got != lastBase {
		t.Fatalf("log end offset %d, want %d", got, lastBase)
	}
	var got [][]byte
	for off := int64(0); off < l.LogEndOffset(); {
		data, err := l.ReadBytes(off, 1<<20, l.LogEndOffset())
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range splitBatchesT(t, data) {
			got = append(got, b)
			h, _ := record.ParseBatchHeader(b)
			off = h.NextOffset()
		}
	}
	want := batches[:len(batches)-1]
	if len(got) != len(want) {
		t.Fatalf("recovered %d batches, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("batch %d differs after recovery", i)
		}
	}
	if info, err := l.Read(lastBase, 1<<20, 1<<40, true); err != nil || info.Size != 0 {
		t.Fatalf("read at the end: size %d err %v, want nothing", info.Size, err)
	}
	if e, _ := l.Epochs().LatestEpoch(); e != 1 {
		t.Errorf("latest epoch %d after losing the epoch-2 batch, want 1", e)
	}
	if _, ok := l.Producers().Producer(77); ok {
		t.Error("producer 77 survived the loss of its only batch")
	}
	// Appends continue where the valid data ends, and the damaged
	// producer batch can be written again from sequence 0.
	info := mustAppend(t, l, idem(77, 0, 0, 1).bytes(), 2)
	if info.FirstOffset != lastBase || info.Duplicate {
		t.Fatalf("append after recovery at %d (dup %v), want %d", info.FirstOffset, info.Duplicate, lastBase)
	}
	hs := readAll(t, l, lastBase)
	if len(hs) != 1 || hs[0].BaseOffset != lastBase || hs[0].PartitionLeaderEpoch != 2 {
		t.Fatalf("read back after recovery: %+v", hs)
	}
}

func lastSegmentLog(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(m) == 0 {
		t.Fatal("no segments")
	}
	return m[len(m)-1]
}

func TestRecoveryCutAtEveryByte(t *testing.T) {
	src, batches, lastPos, lastBase := recoveryFixture(t)
	lastLen := int64(len(batches[len(batches)-1]))
	base := t.TempDir()
	for cut := lastPos; cut < lastPos+lastLen; cut++ {
		dir := filepath.Join(base, "c", "topic-0")
		os.RemoveAll(filepath.Dir(dir))
		copyDir(t, src, dir)
		if err := os.Truncate(lastSegmentLog(t, dir), cut); err != nil {
			t.Fatal(err)
		}
		// The checkpointed recovery point re-reads the last segment only;
		// recovery point 0 re-reads everything (every fourth cut, to keep
		// the fsync-bound test short). Both must end up the same.
		rps := []int64{lastBase}
		if (cut-lastPos)%4 == 0 || cut == lastPos+lastLen-1 {
			rps = append(rps, 0)
		}
		for _, rp := range rps {
			d2 := filepath.Join(base, "r", "topic-0")
			os.RemoveAll(filepath.Dir(d2))
			copyDir(t, dir, d2)
			t.Run("", func(t *testing.T) {
				checkRecovered(t, d2, rp, batches, lastBase)
			})
			if t.Failed() {
				t.Fatalf("cut at byte %d of the last segment (batch at %d), recovery point %d", cut, lastPos, rp)
			}
		}
	}
}

// Flipping a byte of the last batch makes recovery drop it. The CRC covers
// everything from the attributes on; the batch length and magic are caught
// by framing. baseOffset and partitionLeaderEpoch are outside the CRC by
// design (the broker rewrites them), so only flips that break the offset
// order are detectable there: the high byte of baseOffset is tested, the
// epoch bytes are not.
func TestRecoveryFlippedBytes(t *testing.T) {
	src, batches, lastPos, lastBase := recoveryFixture(t)
	lastLen := len(batches[len(batches)-1])
	base := t.TempDir()
	var positions []int
	positions = append(positions, 0) // baseOffset high byte: offsets go backwards or overflow
	for i := 8; i < lastLen; i++ {
		if i >= 12 && i < 16 {
			continue // partitionLeaderEpoch: not CRC-protected
		}
		positions = append(positions, i)
	}
	for i, p := range positions {
		// Low and high bits alternate over the positions.
		mask := []byte{0x01, 0x80}[i%2]
		dir := filepath.Join(base, "f", "topic-0")
		os.RemoveAll(filepath.Dir(dir))
		copyDir(t, src, dir)
		path := lastSegmentLog(t, dir)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[lastPos+int64(p)] ^= mask
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run("", func(t *testing.T) { checkRecovered(t, dir, 0, batches, lastBase) })
		if t.Failed() {
			t.Fatalf("flip 0x%02x at byte %d of the last batch", mask, p)
		}
	}
}

// Garbage after the last batch (a preallocated or torn tail) is cut too.
func TestRecoveryTrailingZeros(t *testing.T) {
	src, batches, _, lastBase := recoveryFixture(t)
	dir := filepath.Join(t.TempDir(), "topic-0")
	copyDir(t, src, dir)
	path := lastSegmentLog(t, dir)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 100))
	f.Close()
	cfg := testConfig()
	cfg.SegmentBytes = 700
	l := openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()
	if got, want := l.LogEndOffset(), lastBase+1; got != want {
		t.Fatalf("log end %d, want %d", got, want)
	}
	if hs := readAll(t, l, 0); len(hs) != len(batches) {
		t.Fatalf("%d batches, want %d", len(hs), len(batches))
	}
	st, _ := os.Stat(path)
	if st.Size() != l.active().size.Load() {
		t.Errorf("file is %d bytes, segment %d: tail not cut", st.Size(), l.active().size.Load())
	}
}

// A corruption in a middle segment (at or after the recovery point) removes
// every later segment.
func TestRecoveryDropsLaterSegments(t *testing.T) {
	src, _, _, _ := recoveryFixture(t)
	dir := filepath.Join(t.TempDir(), "topic-0")
	copyDir(t, src, dir)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	second := logs[1]
	data, _ := os.ReadFile(second)
	data[len(data)-1] ^= 0xff
	os.WriteFile(second, data, 0o644)
	cfg := testConfig()
	cfg.SegmentBytes = 700
	l := openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()
	if n := l.NumSegments(); n != 2 {
		t.Fatalf("%d segments after recovery, want 2", n)
	}
	for _, p := range logs[2:] {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s still exists", p)
		}
	}
	hs := readAll(t, l, 0)
	if got := hs[len(hs)-1].NextOffset(); got != l.LogEndOffset() {
		t.Errorf("last batch ends at %d, log end %d", got, l.LogEndOffset())
	}
}

// Index files are sanity-checked on a clean open and rebuilt when they are
// missing, not whole entries, out of order or pointing past the log.
func TestCleanOpenRebuildsBadIndexes(t *testing.T) {
	src, batches, _, _ := recoveryFixture(t)
	first := "00000000000000000000"
	goodIdx, _ := os.ReadFile(filepath.Join(src, first+".index"))
	if len(goodIdx) < 16 {
		t.Fatalf("fixture index has %d bytes, want at least two entries", len(goodIdx))
	}
	tests := []struct {
		name   string
		damage func(dir string)
	}{
		{"missing offset index", func(dir string) { os.Remove(filepath.Join(dir, first+".index")) }},
		{"missing time index", func(dir string) { os.Remove(filepath.Join(dir, first+".timeindex")) }},
		{"partial entry", func(dir string) {
			os.WriteFile(filepath.Join(dir, first+".index"), append(goodIdx, 1, 2, 3), 0o644)
		}},
		{"entries not increasing", func(dir string) {
			b := append([]byte(nil), goodIdx...)
			copy(b[8:16], b[0:8])
			os.WriteFile(filepath.Join(dir, first+".index"), b, 0o644)
		}},
		{"last entry beyond the log", func(dir string) {
			b := append([]byte(nil), goodIdx...)
			b[len(b)-4] = 0x7f
			os.WriteFile(filepath.Join(dir, first+".index"), b, 0o644)
		}},
		{"time index out of order", func(dir string) {
			os.WriteFile(filepath.Join(dir, first+".timeindex"), make([]byte, 24), 0o644)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "topic-0")
			copyDir(t, src, dir)
			tc.damage(dir)
			cfg := testConfig()
			cfg.SegmentBytes = 700
			cfg.IndexIntervalBytes = 150
			l := openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: true})
			if got := l.segments()[0].offIdx.entries(); len(got)*offsetEntrySize != len(goodIdx) {
				t.Errorf("rebuilt index has %d entries, want %d", len(got), len(goodIdx)/offsetEntrySize)
			}
			if hs := readAll(t, l, 0); len(hs) != len(batches) {
				t.Errorf("read %d batches, want %d", len(hs), len(batches))
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if idx, _ := os.ReadFile(filepath.Join(dir, first+".index")); !bytes.Equal(idx, goodIdx) {
				t.Errorf("rebuilt .index = %x, want %x", idx, goodIdx)
			}
		})
	}
}
