package storage

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEndOffsetFor(t *testing.T) {
	// Epochs 2@10, 4@20, 5@20, 7@40; LEO 50. Epoch 4 wrote nothing before
	// epoch 5 began at the same offset, so Assign(5, 20) replaces it, as
	// Kafka's cache does.
	c, _ := OpenLeaderEpochCache("", nil)
	for _, e := range []EpochEntry{{2, 10}, {4, 20}, {5, 20}, {7, 40}} {
		if err := c.Assign(e.Epoch, e.StartOffset); err != nil {
			t.Fatal(err)
		}
	}
	empty, _ := OpenLeaderEpochCache("", nil)
	tests := []struct {
		name      string
		c         *LeaderEpochCache
		requested int32
		wantE     int32
		wantO     int64
	}{
		{"latest epoch: the log end", c, 7, 7, 50},
		{"undefined", c, -1, -1, -1},
		{"above the latest", c, 8, -1, -1},
		{"exact middle epoch 2 ends where the next starts", c, 2, 2, 20},
		{"replaced epoch 4: floor 2, ends at 20", c, 4, 2, 20},
		{"epoch 5 ends at 40", c, 5, 5, 40},
		{"unknown epoch between: the floor's epoch", c, 6, 5, 40},
		{"unknown epoch 3: floor 2, ends at 20", c, 3, 2, 20},
		{"older than every entry: requested, first start", c, 1, 1, 10},
		{"empty cache", empty, 0, -1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, o := tc.c.EndOffsetFor(tc.requested, 50)
			if e != tc.wantE || o != tc.wantO {
				t.Errorf("EndOffsetFor(%d) = (%d, %d), want (%d, %d)", tc.requested, e, o, tc.wantE, tc.wantO)
			}
		})
	}
}

func TestLeaderEpochCacheRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFile)
	c, err := OpenLeaderEpochCache(path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.LatestEpoch(); ok {
		t.Fatal("empty cache has a latest epoch")
	}
	steps := []struct {
		epoch int32
		start int64
		want  []EpochEntry
	}{
		{1, 0, []EpochEntry{{1, 0}}},
		{1, 5, []EpochEntry{{1, 0}}},           // the latest epoch again: ignored
		{3, 10, []EpochEntry{{1, 0}, {3, 10}}}, // newer
		{4, 10, []EpochEntry{{1, 0}, {4, 10}}}, // same start: 3 never wrote, 4 replaces it
		{6, 30, []EpochEntry{{1, 0}, {4, 10}, {6, 30}}},
	}
	for _, s := range steps {
		if err := c.Assign(s.epoch, s.start); err != nil {
			t.Fatal(err)
		}
		if got := c.Entries(); !equalEpochs(got, s.want) {
			t.Fatalf("after Assign(%d, %d): %v, want %v", s.epoch, s.start, got, s.want)
		}
	}
	if err := c.Assign(-1, 0); err == nil {
		t.Error("negative epoch accepted")
	}
	for _, tc := range []struct {
		off  int64
		want int32
		ok   bool
	}{{0, 1, true}, {9, 1, true}, {10, 4, true}, {29, 4, true}, {30, 6, true}, {99, 6, true}} {
		if e, ok := c.EpochForOffset(tc.off); e != tc.want || ok != tc.ok {
			t.Errorf("EpochForOffset(%d) = %d %v, want %d %v", tc.off, e, ok, tc.want, tc.ok)
		}
	}
	data, _ := os.ReadFile(path)
	if want := "0\n3\n1 0\n4 10\n6 30\n"; string(data) != want {
		t.Errorf("checkpoint file %q, want %q", data, want)
	}
	if err := c.TruncateFromEnd(10); err != nil {
		t.Fatal(err)
	}
	if got := c.Entries(); !equalEpochs(got, []EpochEntry{{1, 0}}) {
		t.Errorf("TruncateFromEnd(10): %v", got)
	}
	c.Assign(3, 10)
	c.Assign(6, 30)
	if err := c.TruncateFromStart(15); err != nil {
		t.Fatal(err)
	}
	if got := c.Entries(); !equalEpochs(got, []EpochEntry{{3, 15}, {6, 30}}) {
		t.Errorf("TruncateFromStart(15): %v", got)
	}
	if err := c.TruncateFromStart(30); err != nil {
		t.Fatal(err)
	}
	if got := c.Entries(); !equalEpochs(got, []EpochEntry{{6, 30}}) {
		t.Errorf("TruncateFromStart(30): %v", got)
	}
	c2, err := OpenLeaderEpochCache(path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.Entries(); !equalEpochs(got, []EpochEntry{{6, 30}}) {
		t.Errorf("reloaded: %v", got)
	}
}

// Assign removes the entries a new one contradicts, as Kafka's
// maybeTruncateNonMonotonicEntries does: any with an epoch at or above the
// new one, or starting at or after it.
func TestAssignDropsContradictedEntries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		have  []EpochEntry
		epoch int32
		start int64
		want  []EpochEntry
	}{
		{"later start below the latest", []EpochEntry{{1, 0}, {3, 10}}, 4, 5, []EpochEntry{{1, 0}, {4, 5}}},
		{"older epoch after truncation", []EpochEntry{{1, 0}, {3, 10}}, 2, 20, []EpochEntry{{1, 0}, {2, 20}}},
		{"latest epoch starting earlier", []EpochEntry{{1, 0}, {3, 10}}, 3, 8, []EpochEntry{{1, 0}, {3, 8}}},
		{"two empty epochs at the log end", []EpochEntry{{0, 0}, {1, 200}}, 2, 200, []EpochEntry{{0, 0}, {2, 200}}},
	} {
		c, _ := OpenLeaderEpochCache("", quietLogger())
		for _, e := range tc.have {
			c.Assign(e.Epoch, e.StartOffset)
		}
		if err := c.Assign(tc.epoch, tc.start); err != nil {
			t.Fatal(err)
		}
		if got := c.Entries(); !equalEpochs(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A checkpoint written before Assign replaced contradicted entries (two
// epochs starting at the log end) is repaired when it is read, and the file
// is rewritten.
func TestOpenRepairsContradictedCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), LeaderEpochCheckpointFile)
	if err := WriteLeaderEpochCheckpoint(path, []EpochEntry{{0, 0}, {1, 20000}, {2, 20000}}); err != nil {
		t.Fatal(err)
	}
	c, err := OpenLeaderEpochCache(path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	want := []EpochEntry{{0, 0}, {2, 20000}}
	if got := c.Entries(); !equalEpochs(got, want) {
		t.Fatalf("loaded %v, want %v", got, want)
	}
	onDisk, err := ReadLeaderEpochCheckpoint(path)
	if err != nil || !equalEpochs(onDisk, want) {
		t.Fatalf("checkpoint now %v (%v), want %v", onDisk, err, want)
	}
}

// A follower asked to truncate at or beyond its log end keeps its batches
// but drops epoch entries starting at the end: a broker elected leader
// that appended nothing must not keep naming that epoch in its fetches
// (the leader would answer with a diverging epoch forever).
func TestTruncateAtLogEndTrimsEpochs(t *testing.T) {
	dir := partDir(t)
	l := openTestLog(t, dir, testConfig(), OpenOptions{})
	defer l.Close()
	b := plain(2, 5, 1)
	b.epoch = 0
	if _, err := l.AppendAsFollower(b.bytes()); err != nil {
		t.Fatal(err)
	}
	leo := l.LogEndOffset()
	if err := l.Epochs().Assign(3, leo); err != nil { // elected, wrote nothing
		t.Fatal(err)
	}
	if err := l.TruncateTo(leo); err != nil {
		t.Fatal(err)
	}
	if got := l.Epochs().Entries(); !equalEpochs(got, []EpochEntry{{0, 0}}) {
		t.Errorf("epochs after truncating at the log end: %v", got)
	}
	if l.LogEndOffset() != leo {
		t.Errorf("log end moved to %d", l.LogEndOffset())
	}
}

// The log assigns epochs for follower batches above the latest, stamps
// leader appends, and after a restart drops entries beyond the log end.
func TestLogKeepsEpochsConsistent(t *testing.T) {
	dir := partDir(t)
	l := openTestLog(t, dir, testConfig(), OpenOptions{})
	for i, e := range []int32{0, 0, 2, 1, 5} {
		b := plain(2, 5, 1)
		b.base, b.epoch = int64(2*i), e
		if _, err := l.AppendAsFollower(b.bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.Epochs().Entries(); !equalEpochs(got, []EpochEntry{{0, 0}, {2, 4}, {5, 8}}) {
		t.Errorf("follower epochs %v", got)
	}
	info := mustAppend(t, l, plain(1, 5, 1).bytes(), 6)
	if got := l.Epochs().Entries(); !equalEpochs(got, []EpochEntry{{0, 0}, {2, 4}, {5, 8}, {6, info.FirstOffset}}) {
		t.Errorf("leader epochs %v", got)
	}
	if hs := readAll(t, l, info.FirstOffset); hs[0].PartitionLeaderEpoch != 6 {
		t.Errorf("leader batch stamped with epoch %d", hs[0].PartitionLeaderEpoch)
	}
	l.Close()
	// An epoch entry beyond the log end (its batch was lost) goes on open.
	WriteLeaderEpochCheckpoint(filepath.Join(dir, LeaderEpochCheckpointFile), []EpochEntry{{0, 0}, {2, 4}, {5, 8}, {6, 10}, {9, 40}})
	l2 := openTestLog(t, dir, testConfig(), OpenOptions{CleanShutdown: true})
	defer l2.Close()
	if got := l2.Epochs().Entries(); !equalEpochs(got, []EpochEntry{{0, 0}, {2, 4}, {5, 8}, {6, 10}}) {
		t.Errorf("after reopen %v", got)
	}
}
