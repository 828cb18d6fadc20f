package storage

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"kafgo/broker/storage/vfs"
)

// Kafka's rule, worked by hand for interval 4096: an entry (largest offset of
// the append, position where it starts) is added when more than 4096 bytes
// were appended since the last entry, before counting this append.
func TestIndexEntriesFollowKafkaRule(t *testing.T) {
	dir := partDir(t)
	cfg := testConfig()
	l := openTestLog(t, dir, cfg, OpenOptions{})
	defer l.Close()

	type app struct {
		sizes []int   // one batch per size
		ts    []int64 // timestamp of each batch
	}
	apps := []app{
		{[]int{1000}, []int64{100}},          // pos 0:     since 0    -> none; since 1000
		{[]int{3000}, []int64{90}},           // pos 1000:  1000       -> none; 4000
		{[]int{96}, []int64{110}},            // pos 4000:  4000       -> none; 4096
		{[]int{200}, []int64{105}},           // pos 4096:  4096 !> 4096 -> none; 4296
		{[]int{500, 600}, []int64{120, 130}}, // pos 4296: 4296 > 4096 -> (off 5, 4296); 1100
		{[]int{4000}, []int64{125}},          // pos 5396:  1100       -> none; 5100
		{[]int{100}, []int64{125}},           // pos 9396:  5100 > 4096 -> (off 7, 9396); 100
		{[]int{5000}, []int64{140}},          // pos 9496:  100        -> none; 5100
		{[]int{80}, []int64{90}},             // pos 14496: 5100 > 4096 -> (off 9, 14496)
	}
	for i, a := range apps {
		var bs [][]byte
		for j, s := range a.sizes {
			bs = append(bs, sized(s, a.ts[j]))
		}
		info := mustAppend(t, l, concat(bs...), 0)
		if info.NumBatches != len(a.sizes) {
			t.Fatalf("append %d: %d batches", i, info.NumBatches)
		}
	}
	seg := l.active()
	wantIdx := [][2]int64{{5, 4296}, {7, 9396}, {9, 14496}}
	// Time index: max timestamp so far at each entry point, with the last
	// offset of the batch that carried it: 130@5, 130@5 (not larger:
	// skipped), 140@8.
	wantTime := [][2]int64{{130, 5}, {140, 8}}
	if got := seg.offIdx.entries(); !equalPairs(got, wantIdx) {
		t.Errorf("offset index = %v, want %v", got, wantIdx)
	}
	if got := seg.timeIdx.entries(); !equalPairs(got, wantTime) {
		t.Errorf("time index = %v, want %v", got, wantTime)
	}
	// After close the files hold exactly those entries, big-endian.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.index"))
	want := make([]byte, 0, 24)
	for _, e := range wantIdx {
		want = binary.BigEndian.AppendUint32(want, uint32(e[0]))
		want = binary.BigEndian.AppendUint32(want, uint32(e[1]))
	}
	if string(idx) != string(want) {
		t.Errorf(".index bytes = %x, want %x", idx, want)
	}
	ti, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.timeindex"))
	want = want[:0]
	for _, e := range wantTime {
		want = binary.BigEndian.AppendUint64(want, uint64(e[0]))
		want = binary.BigEndian.AppendUint32(want, uint32(e[1]))
	}
	if string(ti) != string(want) {
		t.Errorf(".timeindex bytes = %x, want %x", ti, want)
	}
}

func equalPairs(a, b [][2]int64) bool {
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

// Leader and follower write the same time index: the last offset of the
// batch with the largest timestamp (Kafka's shallow offset), while -3 still
// answers with the first record carrying that timestamp.
func TestTimeIndexOffsetLeaderEqualsFollower(t *testing.T) {
	cfg := testConfig()
	cfg.IndexIntervalBytes = 0
	for _, leader := range []bool{true, false} {
		t.Run(map[bool]string{true: "leader", false: "follower"}[leader], func(t *testing.T) {
			l := openTestLog(t, partDir(t), cfg, OpenOptions{})
			defer l.Close()
			b0 := plain(3, 10, 1000)
			b0.epoch = 0
			b1 := plain(3, 10, 1000).withDeltas(10, 50, 20)
			b1.base = 3
			var err error
			if leader {
				_, err = l.AppendAsLeader(b0.bytes(), 0)
				if err == nil {
					var info AppendInfo
					info, err = l.AppendAsLeader(b1.bytes(), 0)
					if info.MaxTimestamp != 1050 || info.OffsetOfMaxTimestamp != 5 {
						t.Errorf("append info max ts = %d@%d, want 1050@5", info.MaxTimestamp, info.OffsetOfMaxTimestamp)
					}
				}
			} else {
				_, err = l.AppendAsFollower(b0.bytes())
				if err == nil {
					_, err = l.AppendAsFollower(b1.bytes())
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := l.active().timeIdx.entries(), [][2]int64{{1050, 5}}; !equalPairs(got, want) {
				t.Errorf("time index = %v, want %v", got, want)
			}
			if ts, off, err := l.MaxTimestamp(); err != nil || ts != 1050 || off != 4 {
				t.Errorf("MaxTimestamp = %d@%d (%v), want 1050@4", ts, off, err)
			}
		})
	}
}

func TestOffsetIndexLookup(t *testing.T) {
	x, _, err := openOffsetIndex(vfs.Default, filepath.Join(t.TempDir(), "0.index"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if err := x.resize(10 * offsetEntrySize); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]int64{{110, 1000}, {120, 2000}, {130, 3000}} {
		if err := x.append(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		target, end  int64
		wantO, wantP int64
	}{
		{99, 1 << 30, 100, 0},
		{105, 1 << 30, 100, 0},
		{110, 1 << 30, 110, 1000},
		{125, 1 << 30, 120, 2000},
		{1000, 1 << 30, 130, 3000},
		{1000, 3000, 120, 2000}, // entries at or past the reader's end are ignored
	}
	for _, tc := range tests {
		o, p := x.lookup(tc.target, tc.end)
		if o != tc.wantO || p != tc.wantP {
			t.Errorf("lookup(%d, %d) = (%d, %d), want (%d, %d)", tc.target, tc.end, o, p, tc.wantO, tc.wantP)
		}
	}
	if err := x.append(125, 4000); err == nil {
		t.Error("append of a smaller offset succeeded")
	}
	x.truncateTo(120)
	if got := x.entries(); !equalPairs(got, [][2]int64{{110, 1000}}) {
		t.Errorf("after truncateTo(120): %v", got)
	}
	for i := 0; i < 9; i++ {
		if err := x.append(200+int64(i), 5000+int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if !x.full() {
		t.Error("index with 10 of 10 entries is not full")
	}
	if err := x.append(300, 9000); err == nil {
		t.Error("append to a full index succeeded")
	}
}

func TestTimeIndexLookupAndReservedSlot(t *testing.T) {
	x, _, err := openTimeIndex(vfs.Default, filepath.Join(t.TempDir(), "0.timeindex"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if err := x.resize(3 * timeEntrySize); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		ts, off int64
		skip    bool
		want    int
	}{
		{-1, 100, false, 0}, // NO_TIMESTAMP never indexes
		{50, 101, false, 1},
		{50, 102, false, 1}, // not larger
		{40, 103, false, 1}, // smaller
		{60, 104, false, 2},
	}
	for _, s := range steps {
		if err := x.maybeAppend(s.ts, s.off, s.skip); err != nil {
			t.Fatalf("maybeAppend(%d, %d): %v", s.ts, s.off, err)
		}
		if n := x.n.Load(); n != int64(s.want) {
			t.Fatalf("after (%d, %d): %d entries, want %d", s.ts, s.off, n, s.want)
		}
	}
	if !x.full() {
		t.Fatal("time index keeps its last slot for the roll entry: should be full at 2 of 3")
	}
	if err := x.maybeAppend(70, 105, false); err == nil {
		t.Error("append into the reserved slot without skipFullCheck succeeded")
	}
	if err := x.maybeAppend(70, 105, true); err != nil {
		t.Errorf("forced final entry: %v", err)
	}
	for _, tc := range []struct{ target, wantT, wantO int64 }{{10, -1, 100}, {50, 50, 101}, {65, 60, 104}, {1000, 70, 105}} {
		if ts, o := x.lookup(tc.target); ts != tc.wantT || o != tc.wantO {
			t.Errorf("lookup(%d) = (%d, %d), want (%d, %d)", tc.target, ts, o, tc.wantT, tc.wantO)
		}
	}
}

// An index syncs only when it changed since its last sync: a flush with no
// new entry (most flush.messages=1 flushes) costs no fsync of it, and any
// change (an entry, a truncation, a resize) makes the next sync real.
func TestIndexSyncOnlyWhenChanged(t *testing.T) {
	x, _, err := openOffsetIndex(vfs.Default, filepath.Join(t.TempDir(), "0.index"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	dirty := func() bool { return x.writes.Load() != x.synced.Load() }
	if err := x.resize(10 * offsetEntrySize); err != nil || !dirty() {
		t.Fatalf("resize: %v, dirty %v", err, dirty())
	}
	for _, step := range []struct {
		name   string
		change func() error
	}{
		{"append", func() error { return x.append(110, 1000) }},
		{"truncate", func() error { x.truncateEntries(0); return nil }},
		{"resize", func() error { return x.resize(20 * offsetEntrySize) }},
	} {
		if err := x.sync(); err != nil || dirty() {
			t.Fatalf("before %s: sync %v, dirty %v", step.name, err, dirty())
		}
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		if !dirty() {
			t.Fatalf("%s left the index clean: its next sync would be skipped", step.name)
		}
	}
}
