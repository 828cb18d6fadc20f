package storage

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEndOffsetFor(t *testing.T) {
	// Epochs 2@10, 4@20, 5@20 (5 started without writing), 7@40; LEO 50.
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
		{"exact middle epoch ends where the next starts", c, 4, 4, 20},
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
		{1, 5, []EpochEntry{{1, 0}}},           // same epoch: ignored
		{0, 10, []EpochEntry{{1, 0}}},          // older epoch: ignored
		{3, 10, []EpochEntry{{1, 0}, {3, 10}}}, // newer
		{4, 5, []EpochEntry{{1, 0}, {3, 10}}},  // offset below the latest start: ignored
		{4, 10, []EpochEntry{{1, 0}, {3, 10}, {4, 10}}},
		{6, 30, []EpochEntry{{1, 0}, {3, 10}, {4, 10}, {6, 30}}},
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
	}{{0, 1, true}, {9, 1, true}, {10, 3, true}, {29, 4, true}, {30, 6, true}, {99, 6, true}} {
		if e, ok := c.EpochForOffset(tc.off); e != tc.want || ok != tc.ok {
			t.Errorf("EpochForOffset(%d) = %d %v, want %d %v", tc.off, e, ok, tc.want, tc.ok)
		}
	}
	data, _ := os.ReadFile(path)
	if want := "0\n4\n1 0\n3 10\n4 10\n6 30\n"; string(data) != want {
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
