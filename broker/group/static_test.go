package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func staticReq(instance, member string) JoinRequest {
	r := joinReq(member)
	r.InstanceID = &instance
	r.RequireKnownMemberID = true // v5+: static members skip KIP-394
	return r
}

// staticGroup makes a stable group of static members inst-0..n-1.
func (e *env) staticGroup(n int) []string {
	e.t.Helper()
	var chans []<-chan JoinResult
	for i := range n {
		chans = append(chans, e.c.JoinGroup(staticReq("inst-"+string(rune('0'+i)), "")))
	}
	e.clock.Advance(0)
	var ids []string
	var leader string
	for _, ch := range chans {
		r := recv(e.t, ch)
		errIs(e.t, "static join", r.Err, nil)
		ids = append(ids, r.MemberID)
		leader = r.LeaderID
	}
	e.sync(ids, leader, 1)
	return ids
}

func TestStaticRejoinWithoutRebalance(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.staticGroup(2)
	// inst-1 restarts: same instance, no member id, same protocols.
	r := recv(t, e.c.JoinGroup(staticReq("inst-1", "")))
	if r.Err != nil || r.Generation != 1 || r.MemberID == ids[1] || r.LeaderID != ids[0] || len(r.Members) != 0 {
		t.Fatalf("static rejoin %+v", r)
	}
	if e.state() != Stable || e.generation() != 1 {
		t.Fatalf("a static rejoin rebalanced: %v gen %d", e.state(), e.generation())
	}
	newID := r.MemberID
	// It keeps the old member's assignment.
	if s := recv(t, e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: newID})); s.Err != nil || string(s.Assignment) != ids[1] {
		t.Fatalf("sync %+v", s)
	}
	inst := "inst-1"
	errIs(t, "old id heartbeat", e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: 1, MemberID: ids[1], InstanceID: &inst}), kerr.FencedInstanceID)
	errIs(t, "old id join", recv(t, e.c.JoinGroup(staticReq("inst-1", ids[1]))).Err, kerr.FencedInstanceID)
	errIs(t, "new id heartbeat", e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: 1, MemberID: newID, InstanceID: &inst}), nil)
	// The replacement is persisted.
	recs := e.log.records(t, 0)
	last := recs[len(recs)-1].Group
	if last == nil || last.Members[1].MemberID != newID || *last.Members[1].GroupInstanceID != "inst-1" || string(last.Members[1].Assignment) != ids[1] {
		t.Fatalf("record after the static rejoin %+v", last)
	}
}

func TestStaticLeaderRejoin(t *testing.T) {
	cases := []struct {
		name       string
		v9         bool
		wantLeader func(old, new string) string
		wantSkip   bool
	}{
		// Before KIP-814 the rejoined leader is told the old leader id, so
		// it acts as a follower and keeps its assignment.
		{"v5-v8", false, func(old, _ string) string { return old }, false},
		{"v9 skip assignment", true, func(_, new string) string { return new }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			ids := e.staticGroup(2)
			req := staticReq("inst-0", "")
			req.SupportsSkipAssignment = tc.v9
			r := recv(t, e.c.JoinGroup(req))
			if r.Err != nil || r.LeaderID != tc.wantLeader(ids[0], r.MemberID) || r.SkipAssignment != tc.wantSkip {
				t.Fatalf("leader rejoin %+v", r)
			}
			if tc.wantSkip && len(r.Members) != 2 {
				t.Fatalf("a skip-assignment leader needs the members: %+v", r.Members)
			}
			if e.state() != Stable || e.generation() != 1 {
				t.Fatalf("state %v gen %d", e.state(), e.generation())
			}
		})
	}
}

func TestStaticRejoinChangingProtocolRebalances(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.staticGroup(2)
	req := staticReq("inst-1", "")
	req.Protocols = []Protocol{{Name: "roundrobin", Metadata: subscription("t1")}}
	ch := e.c.JoinGroup(req)
	pending(t, ch)
	if e.state() != PreparingRebalance {
		t.Fatalf("state %v", e.state())
	}
	r0 := recv(t, e.c.JoinGroup(staticReq("inst-0", ids[0])))
	r1 := recv(t, ch)
	if r0.Err != nil || r1.Err != nil || *r0.Protocol != "roundrobin" || r0.Generation != 2 {
		t.Fatalf("after the protocol change %+v / %+v", r0, r1)
	}
}

// A static member that misses a rebalance keeps its place (and its
// instance id) until its session times out.
func TestStaticMemberSurvivesRebalanceUntilSessionTimeout(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxSessionTimeout = 10 * time.Minute })
	var ids []string
	var chans []<-chan JoinResult
	for _, inst := range []string{"inst-0", "inst-1"} {
		req := staticReq(inst, "")
		req.SessionTimeout, req.RebalanceTimeout = 120000, 5000
		chans = append(chans, e.c.JoinGroup(req))
	}
	e.clock.Advance(0)
	for _, ch := range chans {
		ids = append(ids, recv(t, ch).MemberID)
	}
	e.sync(ids, ids[0], 1)
	req := staticReq("inst-0", ids[0])
	req.SessionTimeout, req.RebalanceTimeout = 120000, 5000
	req.Protocols = []Protocol{{Name: "range", Metadata: subscription("t1", "t2")}}
	ch := e.c.JoinGroup(req)
	e.clock.Advance(5 * time.Second)
	r := recv(t, ch)
	if r.Err != nil || r.Generation != 2 || len(r.Members) != 2 {
		t.Fatalf("the static member that did not rejoin must stay: %+v", r)
	}
	// inst-1 comes back within its session: same member id, told to rejoin.
	inst := "inst-1"
	errIs(t, "heartbeat", e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: 1, MemberID: ids[1], InstanceID: &inst}), kerr.IllegalGeneration)
	e.clock.Advance(120 * time.Second)
	errIs(t, "after its session", e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: 2, MemberID: ids[1], InstanceID: &inst}), kerr.UnknownMemberID)
}

func TestStaticLeaveByInstanceID(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.staticGroup(2)
	inst, ghost := "inst-1", "inst-9"
	res := e.c.LeaveGroup("g", []LeavingMember{{InstanceID: &inst}, {InstanceID: &ghost}, {MemberID: "other", InstanceID: &inst}})
	if res.Err != nil || res.Members[0] != nil || res.Members[1] != kerr.UnknownMemberID || res.Members[2] != kerr.UnknownMemberID {
		t.Fatalf("leave %+v", res)
	}
	r := recv(t, e.c.JoinGroup(staticReq("inst-0", ids[0])))
	if r.Err != nil || len(r.Members) != 1 || r.Generation != 2 {
		t.Fatalf("rejoin after leave %+v", r)
	}
	// A fenced id cannot leave for the instance.
	inst0 := "inst-0"
	res = e.c.LeaveGroup("g", []LeavingMember{{MemberID: "stale-id", InstanceID: &inst0}})
	if res.Members[0] != kerr.FencedInstanceID {
		t.Fatalf("fenced leave %+v", res)
	}
}

// A new process of an instance whose old process is still waiting in a
// JoinGroup fences the old one there.
func TestStaticReplacementFencesWaitingJoin(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.staticGroup(2)
	req := staticReq("inst-1", ids[1])
	req.Protocols = []Protocol{{Name: "range", Metadata: subscription("t1", "t2")}}
	old := e.c.JoinGroup(req) // new metadata: PreparingRebalance
	pending(t, old)
	nw := e.c.JoinGroup(staticReq("inst-1", ""))
	errIs(t, "old process", recv(t, old).Err, kerr.FencedInstanceID)
	pending(t, nw)
	r0 := recv(t, e.c.JoinGroup(staticReq("inst-0", ids[0])))
	r1 := recv(t, nw)
	if r0.Err != nil || r1.Err != nil || r1.MemberID == ids[1] || len(r0.Members) != 2 {
		t.Fatalf("after fencing %+v / %+v", r0, r1)
	}
}
