package replica

import (
	"math"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

func sessTP(p int32) partid.TopicPartition { return partid.TopicPartition{Topic: "t", Partition: p} }

func sessData(offsets ...int64) ([]partid.TopicPartition, map[partid.TopicPartition]sessionPartition) {
	var want []partid.TopicPartition
	data := map[partid.TopicPartition]sessionPartition{}
	for i, off := range offsets {
		if off < 0 {
			continue // not fetched this round
		}
		tp := sessTP(int32(i))
		want = append(want, tp)
		data[tp] = sessionPartition{fetchOffset: off, logStartOffset: 0, maxBytes: 1 << 20, leaderEpoch: 3, lastFetchedEpoch: 3}
	}
	return want, data
}

func built(s *fetchSession, offsets ...int64) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	want, data := sessData(offsets...)
	s.build(req, want, data)
	return req
}

func named(req *kmsg.FetchRequest) (ps, forgotten []int32) {
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			ps = append(ps, p.Partition)
		}
	}
	for _, t := range req.ForgottenTopics {
		forgotten = append(forgotten, t.Partitions...)
	}
	return ps, forgotten
}

func answer(id int32, code int16) *kmsg.FetchResponse {
	r := kmsg.NewPtrFetchResponse()
	r.SessionID, r.ErrorCode = id, code
	return r
}

// TestFollowerFetchSession: the follower's session sends everything once,
// then only what changed, forgets what it stops fetching, and goes back to
// a full fetch after any session error.
func TestFollowerFetchSession(t *testing.T) {
	var s fetchSession
	req := built(&s, 10, 20, 30)
	if ps, fg := named(req); req.SessionID != 0 || req.SessionEpoch != 0 || !slices.Equal(ps, []int32{0, 1, 2}) || fg != nil {
		t.Fatalf("first fetch: session %d/%d partitions %v forgotten %v", req.SessionID, req.SessionEpoch, ps, fg)
	}
	if !s.handle(answer(42, 0)) {
		t.Fatal("answer refused")
	}
	// Nothing moved: an empty incremental fetch.
	req = built(&s, 10, 20, 30)
	if ps, fg := named(req); req.SessionID != 42 || req.SessionEpoch != 1 || ps != nil || fg != nil {
		t.Fatalf("quiet fetch: session %d/%d partitions %v forgotten %v", req.SessionID, req.SessionEpoch, ps, fg)
	}
	s.handle(answer(42, 0))
	// Partition 1 moved, partition 2 is no longer fetched.
	req = built(&s, 10, 25, -1)
	if ps, fg := named(req); req.SessionEpoch != 2 || !slices.Equal(ps, []int32{1}) || !slices.Equal(fg, []int32{2}) {
		t.Fatalf("epoch %d partitions %v forgotten %v", req.SessionEpoch, ps, fg)
	}
	s.handle(answer(42, 0))
	// Partition 2 comes back: it is sent again.
	req = built(&s, 10, 25, 30)
	if ps, _ := named(req); !slices.Equal(ps, []int32{2}) {
		t.Fatalf("partitions %v", ps)
	}

	// INVALID_FETCH_SESSION_EPOCH: nothing applied; the next fetch is full
	// and closes the session it names.
	if s.handle(answer(0, kerr.InvalidFetchSessionEpoch.Code)) {
		t.Fatal("an errored answer would be applied")
	}
	req = built(&s, 10, 25, 30)
	if ps, _ := named(req); req.SessionID != 42 || req.SessionEpoch != 0 || len(ps) != 3 {
		t.Fatalf("after epoch error: session %d/%d partitions %v", req.SessionID, req.SessionEpoch, ps)
	}
	// FETCH_SESSION_ID_NOT_FOUND: a full fetch asking for a new session.
	s.handle(answer(0, kerr.FetchSessionIDNotFound.Code))
	req = built(&s, 10, 25, 30)
	if req.SessionID != 0 || req.SessionEpoch != 0 {
		t.Fatalf("after unknown session: %d/%d", req.SessionID, req.SessionEpoch)
	}
	// No room on the leader: every fetch stays full.
	if !s.handle(answer(0, 0)) {
		t.Fatal("a sessionless answer must be applied")
	}
	req = built(&s, 10, 25, 30)
	if ps, _ := named(req); req.SessionEpoch != 0 || len(ps) != 3 {
		t.Fatalf("without a session: epoch %d partitions %v", req.SessionEpoch, ps)
	}
	// A lost connection: close and start over.
	s.handle(answer(7, 0))
	s.reset(s.id)
	if req = built(&s, 10, 25, 30); req.SessionID != 7 || req.SessionEpoch != 0 {
		t.Fatalf("after a lost connection: %d/%d", req.SessionID, req.SessionEpoch)
	}
	// The epoch wraps from MaxInt32 to 1.
	s.handle(answer(7, 0))
	s.epoch = math.MaxInt32
	built(&s, 10, 25, 30)
	s.handle(answer(7, 0))
	if s.epoch != 1 {
		t.Fatalf("epoch after MaxInt32: %d", s.epoch)
	}
}
