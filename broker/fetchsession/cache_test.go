package fetchsession

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
)

func tp(p int32) partid.TopicPartition { return partid.TopicPartition{Topic: "t", Partition: p} }

func parts(ps ...int32) []Partition {
	out := make([]Partition, len(ps))
	for i, p := range ps {
		out[i] = Partition{TP: tp(p), FetchOffset: 10 * int64(p), LogStartOffset: -1, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}
	}
	return out
}

// same is a result equal to what was sent before (hw 100, lso 100, lss 0).
func same() Result { return Result{HighWatermark: 100, LastStableOffset: 100, LogStartOffset: 0} }

func results(n int) []Result {
	out := make([]Result, n)
	for i := range out {
		out[i] = same()
	}
	return out
}

// newTestCache numbers sessions 1, 2, 3... for readable tests.
func newTestCache(slots int) *Cache {
	c := New(slots)
	var next int32
	c.newID = func() int32 { next++; return next }
	return c
}

// open creates a session of n partitions (0..n-1) at nowMs.
func open(t *testing.T, c *Cache, privileged bool, n int32, nowMs int64) int32 {
	t.Helper()
	ps := make([]int32, n)
	for i := range ps {
		ps[i] = int32(i)
	}
	x := c.NewContext(0, InitialEpoch, privileged, parts(ps...), nil, nowMs)
	id, send, err := x.Respond(results(int(n)), nowMs)
	if err != nil || len(send) != int(n) {
		t.Fatalf("full fetch: id %d, sent %v, err %v", id, send, err)
	}
	return id
}

func order(x *Context) []int32 {
	var out []int32
	for _, p := range x.Partitions {
		out = append(out, p.TP.Partition)
	}
	return out
}

func TestFullThenIncremental(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 3, 0)
	if id == InvalidSessionID {
		t.Fatal("no session created")
	}
	// Epoch 1, nothing new from the fetcher: every partition is read.
	x := c.NewContext(id, 1, false, nil, nil, 1)
	if x.Kind != Incremental || !slices.Equal(order(x), []int32{0, 1, 2}) {
		t.Fatalf("kind %v, partitions %v", x.Kind, order(x))
	}
	if x.Partitions[2].FetchOffset != 20 {
		t.Fatalf("session forgot the fetch offset: %+v", x.Partitions[2])
	}
	rs := results(3)
	rs[0].HasRecords = true
	rs[2].HighWatermark = 150
	gotID, send, err := x.Respond(rs, 1)
	if err != nil || gotID != id || !slices.Equal(send, []int{0, 2}) {
		t.Fatalf("id %d send %v err %v; want %d [0 2]", gotID, send, err, id)
	}
	// Partition 0 returned records: it goes last. The fetcher moved its
	// offset on partition 0, and partition 3 joins.
	moved := parts(0, 3)
	moved[0].FetchOffset = 55
	x = c.NewContext(id, 2, false, moved, nil, 2)
	if !slices.Equal(order(x), []int32{1, 2, 0, 3}) || x.Partitions[2].FetchOffset != 55 {
		t.Fatalf("partitions %v (%+v)", order(x), x.Partitions)
	}
	rs = results(4)
	rs[1].HighWatermark = 150 // partition 2: as last sent
	_, send, _ = x.Respond(rs, 2)
	// Partition 3 is new to the session: always sent once.
	if !slices.Equal(send, []int{3}) {
		t.Fatalf("send %v, want [3]", send)
	}
	if st := c.Stats(); st.Sessions != 1 || st.Partitions != 4 || st.IncrementalFetches != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLastStableAndLogStartChangesAreSent(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 2, 0)
	x := c.NewContext(id, 1, false, nil, nil, 1)
	rs := results(2)
	rs[0].LastStableOffset = 90
	rs[1].LogStartOffset = 7
	if _, send, _ := x.Respond(rs, 1); !slices.Equal(send, []int{0, 1}) {
		t.Fatalf("send %v", send)
	}
}

// An error is always sent, and afterwards the partition is sent again even
// if its high watermark is what it was before the error.
func TestErrorResetsHighWatermark(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 1, 0)
	x := c.NewContext(id, 1, false, nil, nil, 1)
	if _, send, _ := x.Respond([]Result{{Failed: true, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1}}, 1); !slices.Equal(send, []int{0}) {
		t.Fatalf("error not sent: %v", send)
	}
	x = c.NewContext(id, 2, false, nil, nil, 2)
	if _, send, _ := x.Respond(results(1), 2); !slices.Equal(send, []int{0}) {
		t.Fatalf("recovered partition not sent: %v", send)
	}
	x = c.NewContext(id, 3, false, nil, nil, 3)
	if _, send, _ := x.Respond(results(1), 3); len(send) != 0 {
		t.Fatalf("unchanged partition sent: %v", send)
	}
}

func TestSessionErrors(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 2, 0)
	if x := c.NewContext(id+100, 1, false, nil, nil, 1); x.Kind != Failed || !errors.Is(x.Err, kerr.FetchSessionIDNotFound) {
		t.Fatalf("unknown id: %+v", x)
	}
	if x := c.NewContext(id, 2, false, nil, nil, 1); x.Kind != Failed || !errors.Is(x.Err, kerr.InvalidFetchSessionEpoch) {
		t.Fatalf("wrong epoch: %+v", x)
	}
	if x := c.NewContext(0, 1, false, nil, nil, 1); x.Kind != Failed || !errors.Is(x.Err, kerr.FetchSessionIDNotFound) {
		t.Fatalf("incremental without a session: %+v", x)
	}
	// A failed context answers with the error and session id 0.
	x := c.NewContext(id, 7, false, nil, nil, 1)
	if gotID, send, err := x.Respond(nil, 1); gotID != 0 || send != nil || !errors.Is(err, kerr.InvalidFetchSessionEpoch) {
		t.Fatalf("failed answer: %d %v %v", gotID, send, err)
	}
	// The session survived the bad requests.
	if x := c.NewContext(id, 1, false, nil, nil, 2); x.Kind != Incremental {
		t.Fatalf("session lost: %+v", x)
	}
}

// A fetch that used the session meanwhile makes the earlier one's answer
// INVALID_FETCH_SESSION_EPOCH.
func TestConcurrentUseOfASession(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 1, 0)
	first := c.NewContext(id, 1, false, nil, nil, 1)
	second := c.NewContext(id, 2, false, nil, nil, 1)
	if second.Kind != Incremental {
		t.Fatalf("second: %+v", second)
	}
	if gotID, _, err := first.Respond(results(1), 1); gotID != id || !errors.Is(err, kerr.InvalidFetchSessionEpoch) {
		t.Fatalf("stale answer: %d %v", gotID, err)
	}
	if _, _, err := second.Respond(results(1), 1); err != nil {
		t.Fatal(err)
	}
}

func TestForgottenAndClosing(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 3, 0)
	x := c.NewContext(id, 1, false, nil, []partid.TopicPartition{tp(1)}, 1)
	if !slices.Equal(order(x), []int32{0, 2}) {
		t.Fatalf("partitions %v", order(x))
	}
	// Forgetting the rest closes the session: served without one.
	x = c.NewContext(id, 2, false, nil, []partid.TopicPartition{tp(0), tp(2)}, 2)
	if x.Kind != Sessionless {
		t.Fatalf("kind %v", x.Kind)
	}
	if gotID, _, _ := x.Respond(nil, 2); gotID != 0 {
		t.Fatalf("answer session id %d", gotID)
	}
	if c.Stats().Sessions != 0 {
		t.Fatal("empty session kept")
	}

	// Epoch -1 closes the named session and answers without one.
	id = open(t, c, false, 2, 3)
	x = c.NewContext(id, FinalEpoch, false, parts(0), nil, 4)
	if gotID, send, _ := x.Respond(results(1), 4); x.Kind != Sessionless || gotID != 0 || len(send) != 1 {
		t.Fatalf("final: kind %v id %d send %v", x.Kind, gotID, send)
	}
	if _, ok := c.get(id); ok {
		t.Fatal("final epoch left the session")
	}

	// Epoch 0 with a session id closes it and opens a new one.
	id = open(t, c, false, 2, 5)
	x = c.NewContext(id, InitialEpoch, false, parts(0, 1), nil, 6)
	newID, _, _ := x.Respond(results(2), 6)
	if _, ok := c.get(id); ok || newID == id || newID == 0 {
		t.Fatalf("old %d new %d", id, newID)
	}
	if c.Stats().Sessions != 1 {
		t.Fatalf("sessions %d", c.Stats().Sessions)
	}
}

func TestNextEpochWraps(t *testing.T) {
	for _, c := range []struct{ in, want int32 }{{0, 1}, {1, 2}, {math.MaxInt32, 1}, {-1, -1}, {-7, -1}} {
		if got := nextEpoch(c.in); got != c.want {
			t.Errorf("nextEpoch(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

const minute = 60_000

// Kafka's eviction rules, case by case.
func TestEviction(t *testing.T) {
	t.Run("no room and nothing evictable: no session", func(t *testing.T) {
		c := newTestCache(2)
		open(t, c, false, 1, 0)
		open(t, c, false, 5, 0)
		x := c.NewContext(0, InitialEpoch, false, parts(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), nil, 1000)
		if id, _, _ := x.Respond(results(10), 1000); id != 0 || c.Stats().Sessions != 2 {
			t.Fatalf("young sessions evicted by an unprivileged newcomer: id %d", id)
		}
	})
	t.Run("privileged evicts the smallest unprivileged, however young", func(t *testing.T) {
		c := newTestCache(2)
		small := open(t, c, false, 1, 0)
		big := open(t, c, false, 5, 0)
		id := open(t, c, true, 1, 1000)
		if id == 0 {
			t.Fatal("privileged session not created")
		}
		if _, ok := c.get(small); ok {
			t.Fatal("the smaller session survived")
		}
		if _, ok := c.get(big); !ok {
			t.Fatal("the larger session was evicted")
		}
		if c.Stats().Evictions != 1 {
			t.Fatalf("evictions %d", c.Stats().Evictions)
		}
	})
	t.Run("young privileged sessions are safe from everyone", func(t *testing.T) {
		c := newTestCache(1)
		open(t, c, true, 1, 0)
		for _, priv := range []bool{false, true} {
			x := c.NewContext(0, InitialEpoch, priv, parts(0, 1, 2), nil, 1000)
			if id, _, _ := x.Respond(results(3), 1000); id != 0 {
				t.Fatalf("privileged=%v newcomer evicted a young privileged session", priv)
			}
		}
	})
	t.Run("stale sessions go first", func(t *testing.T) {
		c := newTestCache(2)
		stale := open(t, c, true, 50, 0)
		fresh := open(t, c, false, 1, 0)
		// fresh is used now and then; stale never again.
		for e, now := int32(1), int64(minute); now <= 2*minute+1000; e, now = e+1, now+minute/2 {
			if x := c.NewContext(fresh, e, false, nil, nil, now); x.Kind != Incremental {
				t.Fatalf("fresh session lost at %d", now)
			}
		}
		id := open(t, c, false, 1, 2*minute+1000)
		if _, ok := c.get(stale); ok || id == 0 {
			t.Fatalf("stale privileged session kept (new id %d)", id)
		}
	})
	t.Run("old sessions yield to bigger newcomers only", func(t *testing.T) {
		c := newTestCache(2)
		small := open(t, c, false, 2, 0)
		big := open(t, c, false, 5, 0)
		// Both used after the eviction age: old, recently used.
		const then = 2*minute + 1000
		for _, id := range []int32{small, big} {
			if x := c.NewContext(id, 1, false, nil, nil, then); x.Kind != Incremental {
				t.Fatal("session lost")
			}
		}
		// Same size as the smallest: the newcomer does not win.
		x := c.NewContext(0, InitialEpoch, false, parts(0, 1), nil, then+1)
		if id, _, _ := x.Respond(results(2), then+1); id != 0 {
			t.Fatal("a newcomer of equal size evicted a session")
		}
		// Larger than the smallest: it evicts the smallest.
		id := open(t, c, false, 3, then+2)
		if _, ok := c.get(small); ok || id == 0 {
			t.Fatal("the smallest old session was not evicted by a larger newcomer")
		}
		if _, ok := c.get(big); !ok {
			t.Fatal("the larger old session was evicted")
		}
	})
	t.Run("zero slots: never a session", func(t *testing.T) {
		c := newTestCache(0)
		x := c.NewContext(0, InitialEpoch, true, parts(0), nil, 0)
		if id, send, _ := x.Respond(results(1), 0); id != 0 || len(send) != 1 {
			t.Fatalf("id %d send %v", id, send)
		}
	})
}

// Peek says what Respond would send without recording it: a throttled
// consumer, answered empty, must still get the high watermark change on
// its next fetch. A throttled answer keeps an incremental session's id and
// creates none for a full fetch.
func TestPeekRecordsNothing(t *testing.T) {
	c := newTestCache(10)
	id := open(t, c, false, 2, 0)
	x := c.NewContext(id, 1, false, nil, nil, 1)
	rs := results(2)
	rs[1].HighWatermark = 150
	if send := x.Peek(rs); !slices.Equal(send, []int{1}) {
		t.Fatalf("peek %v, want [1]", send)
	}
	if got := x.ThrottledSessionID(); got != id {
		t.Fatalf("throttled session id %d, want %d", got, id)
	}
	// Answered empty (throttled): the next fetch still sends the change.
	x = c.NewContext(id, 2, false, nil, nil, 2)
	if _, send, err := x.Respond(rs, 2); err != nil || !slices.Equal(send, []int{1}) {
		t.Fatalf("after a throttled answer: send %v err %v, want [1]", send, err)
	}
	full := c.NewContext(0, InitialEpoch, false, parts(0), nil, 3)
	if send := full.Peek(results(1)); !slices.Equal(send, []int{0}) || full.ThrottledSessionID() != InvalidSessionID {
		t.Fatalf("full fetch: peek %v, throttled id %d", send, full.ThrottledSessionID())
	}
	if st := c.Stats(); st.Sessions != 1 {
		t.Fatalf("a peeked full fetch created a session: %+v", st)
	}
}
