package txn

import (
	"testing"

	"kafgo/broker/partid"
)

// TestStats: the loaded partition and its transactional ids by state.
func TestStats(t *testing.T) {
	e := newEnv(t)
	if s := e.c.Stats(); s.PartitionsLoaded != 1 || s.PartitionsLoading != 0 || len(s.Transactions) != 0 {
		t.Fatalf("before any transaction %+v", s)
	}
	a := e.mustInit("a")
	e.mustInit("b")
	if err := e.add("a", a, partid.TopicPartition{Topic: "a", Partition: 0}); err != nil {
		t.Fatal(err)
	}
	s := e.c.Stats()
	if s.Transactions["Ongoing"] != 1 || s.Transactions["Empty"] != 1 || len(s.Transactions) != 2 {
		t.Fatalf("one ongoing, one empty: %+v", s)
	}
}
