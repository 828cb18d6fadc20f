package group

import (
	"sort"
	"testing"
)

// TestSnapshot: the groups this coordinator holds, with their states,
// member counts and committed offsets.
func TestSnapshot(t *testing.T) {
	e := newEnv(t, nil)
	if s := e.c.Snapshot(); len(s) != 0 {
		t.Fatalf("groups before any: %+v", s)
	}
	e.stableGroup(2) // group "g"
	errIs(t, "commit", e.commit(simpleCommit("h", off("t", 0, 5), off("t", 1, 7)))[0], nil)
	s := e.c.Snapshot()
	sort.Slice(s, func(i, j int) bool { return s[i].ID < s[j].ID })
	if len(s) != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	if g := s[0]; g.ID != "g" || g.State != Stable || g.Members != 2 || len(g.Offsets) != 0 {
		t.Fatalf("group g %+v", g)
	}
	if h := s[1]; h.ID != "h" || h.State != Empty || h.Members != 0 ||
		h.Offsets[TopicPartition{Topic: "t", Partition: 0}] != 5 || h.Offsets[TopicPartition{Topic: "t", Partition: 1}] != 7 {
		t.Fatalf("group h %+v", h)
	}
	// Leadership moves away: the groups go with it.
	e.c.OnLeadershipChange(OffsetsTopic, 0, false, 2)
	if s := e.c.Snapshot(); len(s) != 0 {
		t.Fatalf("groups after unloading: %+v", s)
	}
}
