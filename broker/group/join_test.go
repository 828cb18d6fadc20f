package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestJoinSyncStable(t *testing.T) {
	e := newEnv(t, nil)
	a, cha := e.joinNew(nil)
	b, chb := e.joinNew(func(r *JoinRequest) {
		// b prefers roundrobin, a range: one vote each, the oldest
		// member's order breaks the tie.
		r.Protocols = []Protocol{consumerProtos[1], consumerProtos[0]}
	})
	pending(t, cha)
	e.clock.Advance(0)
	ra, rb := recv(t, cha), recv(t, chb)
	for _, r := range []JoinResult{ra, rb} {
		errIs(t, "join", r.Err, nil)
		if r.Generation != 1 || r.LeaderID != a || r.Protocol == nil || *r.Protocol != "range" || *r.ProtocolType != "consumer" {
			t.Fatalf("join result %+v", r)
		}
	}
	if len(ra.Members) != 2 || ra.Members[0].MemberID != a || ra.Members[1].MemberID != b || len(rb.Members) != 0 {
		t.Fatalf("leader got %+v, follower %+v", ra.Members, rb.Members)
	}
	if string(ra.Members[1].Metadata) != string(consumerProtos[0].Metadata) {
		t.Fatal("the leader must get each member's metadata for the chosen protocol")
	}
	if e.state() != CompletingRebalance {
		t.Fatalf("state %v", e.state())
	}
	// The follower waits for the leader's assignment.
	sb := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: b})
	pending(t, sb)
	sa := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: a, Assignments: map[string][]byte{a: []byte("A"), b: []byte("B"), "stranger": []byte("x")}})
	if r := recv(t, sa); r.Err != nil || string(r.Assignment) != "A" {
		t.Fatalf("leader sync %+v", r)
	}
	if r := recv(t, sb); r.Err != nil || string(r.Assignment) != "B" || *r.Protocol != "range" {
		t.Fatalf("follower sync %+v", r)
	}
	if e.state() != Stable {
		t.Fatalf("state %v", e.state())
	}
	// The assignment is in the log, in Kafka's group metadata format.
	recs := e.log.records(t, 0)
	last := recs[len(recs)-1]
	if last.Group == nil || last.Group.Generation != 1 || len(last.Group.Members) != 2 || string(last.Group.Members[1].Assignment) != "B" ||
		*last.Group.Leader != a || last.Group.Members[0].ClientHost != "/127.0.0.1" || last.Group.Members[0].SessionTimeout != 10000 {
		t.Fatalf("group record %+v", last.Group)
	}
	// Stable: a follower rejoining with the same metadata just gets the
	// current generation; a SyncGroup gets its assignment again.
	req := joinReq(b)
	req.Protocols = []Protocol{consumerProtos[1], consumerProtos[0]}
	if r := recv(t, e.c.JoinGroup(req)); r.Err != nil || r.Generation != 1 || len(r.Members) != 0 {
		t.Fatalf("stable rejoin %+v", r)
	}
	if r := recv(t, e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: b})); string(r.Assignment) != "B" {
		t.Fatalf("stable sync %+v", r)
	}
}

func TestJoinErrors(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*JoinRequest)
		want *kerr.Error
	}{
		// group.max.size is checked first, as Kafka does; the group here
		// has 2 members and the limit is 3 except in the last case.
		{"empty group id", func(r *JoinRequest) { r.Group = "" }, kerr.InvalidGroupID},
		{"session timeout too short", func(r *JoinRequest) { r.SessionTimeout = 999 }, kerr.InvalidSessionTimeout},
		{"session timeout too long", func(r *JoinRequest) { r.SessionTimeout = 60001 }, kerr.InvalidSessionTimeout},
		{"unknown member of unknown group", func(r *JoinRequest) { r.Group = "other"; r.MemberID = "ghost" }, kerr.UnknownMemberID},
		{"unknown member", func(r *JoinRequest) { r.MemberID = "ghost" }, kerr.UnknownMemberID},
		{"other protocol type", func(r *JoinRequest) { r.ProtocolType = "connect" }, kerr.InconsistentGroupProtocol},
		{"no common protocol", func(r *JoinRequest) { r.Protocols = []Protocol{{Name: "sticky"}} }, kerr.InconsistentGroupProtocol},
		{"group full", func(r *JoinRequest) {}, kerr.GroupMaxSizeReached},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			limit := 3
			if tc.want == kerr.GroupMaxSizeReached {
				limit = 2
			}
			e := newEnv(t, func(c *Config) { c.MaxSize = limit })
			e.stableGroup(2)
			req := joinReq("")
			tc.mod(&req)
			r := recv(t, e.c.JoinGroup(req))
			errIs(t, "join", r.Err, tc.want)
			if r.Generation != -1 {
				t.Fatalf("an error answer has generation %d", r.Generation)
			}
			if e.state() != Stable || e.generation() != 1 {
				t.Fatalf("a refused join disturbed the group: %v gen %d", e.state(), e.generation())
			}
		})
	}
}

func TestJoinV0ProceedsWithoutMemberIDRound(t *testing.T) {
	e := newEnv(t, nil)
	ch := e.c.JoinGroup(joinReq("")) // RequireKnownMemberID unset: v0-v3
	e.clock.Advance(0)
	r := recv(t, ch)
	if r.Err != nil || r.Generation != 1 || r.LeaderID != r.MemberID || len(r.MemberID) < len("client-")+36 {
		t.Fatalf("v0 join %+v", r)
	}
}

func TestPendingMemberExpires(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(1)
	req := joinReq("")
	req.RequireKnownMemberID = true
	r := recv(t, e.c.JoinGroup(req))
	errIs(t, "first join", r.Err, kerr.MemberIDRequired)
	// The existing member rejoins; the pending one holds the phase open
	// until its session timeout passes.
	ch := e.c.JoinGroup(joinReq(ids[0]))
	e.clock.Advance(9 * time.Second)
	pending(t, ch)
	e.clock.Advance(time.Second)
	if r := recv(t, ch); r.Err != nil || r.Generation != 2 {
		t.Fatalf("join after pending expiry %+v", r)
	}
	req.MemberID = r.MemberID
	if r := recv(t, e.c.JoinGroup(req)); r.Err != kerr.UnknownMemberID {
		t.Fatalf("expired pending id rejoined: %+v", r)
	}
}

// Kafka's InitialDelayedJoin: 3 s delay, extended while members arrive,
// never past the 10 s rebalance timeout in total.
func TestInitialRebalanceDelay(t *testing.T) {
	cases := []struct {
		name     string
		arrivals []time.Duration // after the first join
		done     time.Duration   // when the joins are answered
	}{
		{"alone", nil, 3 * time.Second},
		{"one more within the delay", []time.Duration{2 * time.Second}, 6 * time.Second},
		{"two more", []time.Duration{2 * time.Second, 4 * time.Second}, 9 * time.Second},
		{"capped by the rebalance timeout", []time.Duration{2 * time.Second, 4 * time.Second, 7 * time.Second, 9500 * time.Millisecond}, 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.InitialRebalanceDelay = 3 * time.Second })
			mk := func() JoinRequest { r := joinReq(""); r.RebalanceTimeout = 10000; return r }
			chans := []<-chan JoinResult{e.c.JoinGroup(mk())}
			var at time.Duration
			for _, a := range tc.arrivals {
				e.clock.Advance(a - at)
				at = a
				chans = append(chans, e.c.JoinGroup(mk()))
			}
			e.clock.Advance(tc.done - at - time.Millisecond)
			pending(t, chans[0])
			e.clock.Advance(time.Millisecond)
			for _, ch := range chans {
				if r := recv(t, ch); r.Err != nil || r.Generation != 1 {
					t.Fatalf("join %+v", r)
				}
			}
		})
	}
}

func TestRebalanceTimeoutRemovesLaggards(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(3)
	// A new member triggers a rebalance; only ids[0] and the newcomer
	// rejoin. ids[1] and ids[2] keep heartbeating (they are told to rejoin)
	// but never do.
	_, chNew := e.joinNew(nil)
	ch0 := e.c.JoinGroup(joinReq(ids[0]))
	for i := 0; i < 5; i++ {
		e.clock.Advance(5 * time.Second)
		errIs(t, "heartbeat", e.heartbeat(ids[1], 1), kerr.RebalanceInProgress)
		errIs(t, "heartbeat", e.heartbeat(ids[2], 1), kerr.RebalanceInProgress)
		pending(t, ch0)
	}
	e.clock.Advance(5 * time.Second) // 30 s: the rebalance timeout
	r0, rn := recv(t, ch0), recv(t, chNew)
	if r0.Err != nil || r0.Generation != 2 || len(r0.Members) != 2 || rn.Generation != 2 {
		t.Fatalf("after the rebalance timeout: %+v / %+v", r0, rn)
	}
	errIs(t, "removed member's heartbeat", e.heartbeat(ids[1], 1), kerr.UnknownMemberID)
}

func TestSessionTimeout(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	for range 2 {
		e.clock.Advance(4 * time.Second)
		errIs(t, "heartbeat", e.heartbeat(ids[0], 1), nil)
	}
	e.clock.Advance(2*time.Second - time.Millisecond)
	errIs(t, "heartbeat before the other's expiry", e.heartbeat(ids[0], 1), nil)
	// ids[1] never heartbeat: its 10 s session runs out at 10 s.
	e.clock.Advance(time.Millisecond)
	errIs(t, "survivor", e.heartbeat(ids[0], 1), kerr.RebalanceInProgress)
	errIs(t, "expired", e.heartbeat(ids[1], 1), kerr.UnknownMemberID)
	r := recv(t, e.c.JoinGroup(joinReq(ids[0])))
	if r.Err != nil || r.Generation != 2 || len(r.Members) != 1 {
		t.Fatalf("rejoin %+v", r)
	}
}

func TestHeartbeatErrors(t *testing.T) {
	inst := "instance-1"
	cases := []struct {
		name  string
		req   func(ids []string) HeartbeatRequest
		setup func(e *env, ids []string)
		want  *kerr.Error
	}{
		{"ok", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "g", Generation: 1, MemberID: ids[0]}
		}, nil, nil},
		{"empty group id", func(ids []string) HeartbeatRequest { return HeartbeatRequest{Generation: 1, MemberID: ids[0]} }, nil, kerr.InvalidGroupID},
		{"unknown group", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "nope", Generation: 1, MemberID: ids[0]}
		}, nil, kerr.UnknownMemberID},
		{"unknown member", func(ids []string) HeartbeatRequest { return HeartbeatRequest{Group: "g", Generation: 1, MemberID: "x"} }, nil, kerr.UnknownMemberID},
		{"old generation", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "g", Generation: 0, MemberID: ids[0]}
		}, nil, kerr.IllegalGeneration},
		{"rebalancing", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "g", Generation: 1, MemberID: ids[1]}
		},
			func(e *env, ids []string) { e.c.JoinGroup(joinReq(ids[0])) }, kerr.RebalanceInProgress},
		{"completing rebalance is fine", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "g", Generation: 2, MemberID: ids[1]}
		},
			func(e *env, ids []string) {
				e.c.JoinGroup(joinReq(ids[0]))
				e.c.JoinGroup(joinReq(ids[1]))
			}, nil},
		{"fenced instance", func(ids []string) HeartbeatRequest {
			return HeartbeatRequest{Group: "g", Generation: 1, MemberID: "someone-else", InstanceID: &inst}
		}, func(e *env, ids []string) {
			g, _ := e.c.lockGroup("g", false)
			g.static[inst] = ids[0]
			g.members[ids[0]].instanceID = &inst
			g.mu.Unlock()
		}, kerr.FencedInstanceID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			ids := e.stableGroup(2)
			if tc.setup != nil {
				tc.setup(e, ids)
			}
			errIs(t, "heartbeat", e.c.Heartbeat(tc.req(ids)), tc.want)
		})
	}
}

func TestSyncErrors(t *testing.T) {
	cases := []struct {
		name string
		req  func(ids []string) SyncRequest
		want *kerr.Error
	}{
		{"unknown group", func(ids []string) SyncRequest { return SyncRequest{Group: "nope", Generation: 1, MemberID: ids[0]} }, kerr.UnknownMemberID},
		{"unknown member", func(ids []string) SyncRequest { return SyncRequest{Group: "g", Generation: 1, MemberID: "x"} }, kerr.UnknownMemberID},
		{"old generation", func(ids []string) SyncRequest { return SyncRequest{Group: "g", Generation: 0, MemberID: ids[0]} }, kerr.IllegalGeneration},
		{"wrong protocol", func(ids []string) SyncRequest {
			p := "roundrobin"
			return SyncRequest{Group: "g", Generation: 1, MemberID: ids[0], Protocol: &p}
		}, kerr.InconsistentGroupProtocol},
		{"wrong protocol type", func(ids []string) SyncRequest {
			p := "connect"
			return SyncRequest{Group: "g", Generation: 1, MemberID: ids[0], ProtocolType: &p}
		}, kerr.InconsistentGroupProtocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			ids := e.stableGroup(2)
			errIs(t, "sync", recv(t, e.c.SyncGroup(tc.req(ids))).Err, tc.want)
		})
	}
}

func TestSyncDuringRebalance(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	e.c.JoinGroup(joinReq(ids[0])) // the leader rejoins: PreparingRebalance
	errIs(t, "sync", recv(t, e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: ids[1]})).Err, kerr.RebalanceInProgress)
}

// A member rejoining while others wait for the leader's assignment sends
// them back to JoinGroup.
func TestRejoinDuringCompletingRebalance(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	ch0, ch1 := e.c.JoinGroup(joinReq(ids[0])), e.c.JoinGroup(joinReq(ids[1]))
	recv(t, ch0)
	recv(t, ch1)
	s1 := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 2, MemberID: ids[1]})
	pending(t, s1)
	req := joinReq(ids[1])
	req.Protocols = []Protocol{{Name: "range", Metadata: subscription("t1", "t2")}}
	rj := e.c.JoinGroup(req)
	errIs(t, "waiting sync", recv(t, s1).Err, kerr.RebalanceInProgress)
	errIs(t, "commit", e.commit(CommitRequest{Group: "g", Generation: 2, MemberID: ids[0], RetentionMs: -1, Offsets: []CommitOffset{off("t1", 0, 1)}})[0], nil)
	pending(t, rj)
}

func TestPendingSyncTimeout(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	ch0, ch1 := e.c.JoinGroup(joinReq(ids[0])), e.c.JoinGroup(joinReq(ids[1]))
	recv(t, ch0)
	recv(t, ch1)
	// The follower syncs; the leader heartbeats but never assigns.
	s1 := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 2, MemberID: ids[1]})
	for range 5 {
		e.clock.Advance(5 * time.Second)
		errIs(t, "leader heartbeat", e.heartbeat(ids[0], 2), nil)
	}
	pending(t, s1)
	e.clock.Advance(5 * time.Second) // 30 s rebalance timeout
	errIs(t, "follower sync", recv(t, s1).Err, kerr.RebalanceInProgress)
	errIs(t, "removed leader", e.heartbeat(ids[0], 2), kerr.UnknownMemberID)
	if e.state() != PreparingRebalance {
		t.Fatalf("state %v", e.state())
	}
}

func TestLeave(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(3)
	res := e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[2]}, {MemberID: "ghost"}})
	if res.Err != nil || res.Members[0] != nil || res.Members[1] != kerr.UnknownMemberID {
		t.Fatalf("leave %+v", res)
	}
	// The leaving member was the last to... not the leader: the others
	// rejoin and carry on without it.
	ch0, ch1 := e.c.JoinGroup(joinReq(ids[0])), e.c.JoinGroup(joinReq(ids[1]))
	if r := recv(t, ch0); r.Generation != 2 || len(r.Members) != 2 {
		t.Fatalf("leader rejoin %+v", r)
	}
	recv(t, ch1)
	e.sync(ids[:2], ids[0], 2)
	// The leader leaves too: leadership passes on.
	e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[0]}})
	if r := recv(t, e.c.JoinGroup(joinReq(ids[1]))); r.LeaderID != ids[1] || r.Generation != 3 {
		t.Fatalf("after the leader left %+v", r)
	}
	// The last member leaves: Empty, written with no members.
	e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[1]}})
	if e.state() != Empty || e.generation() != 4 {
		t.Fatalf("state %v generation %d", e.state(), e.generation())
	}
	recs := e.log.records(t, 0)
	last := recs[len(recs)-1].Group
	if last == nil || len(last.Members) != 0 || last.Generation != 4 || last.Protocol != nil || last.Leader != nil || last.ProtocolType != "consumer" {
		t.Fatalf("empty group record %+v", last)
	}
	if r := e.c.LeaveGroup("", nil); r.Err != kerr.InvalidGroupID {
		t.Fatalf("leave without group id: %+v", r)
	}
	if r := e.c.LeaveGroup("nope", []LeavingMember{{MemberID: "x"}}); r.Err != nil || r.Members[0] != kerr.UnknownMemberID {
		t.Fatalf("leave unknown group: %+v", r)
	}
}

// A member that leaves while its JoinGroup waits gets UNKNOWN_MEMBER_ID
// there, and the rebalance completes without it.
func TestLeaveWhileJoining(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	_, chNew := e.joinNew(nil)
	ch1 := e.c.JoinGroup(joinReq(ids[1]))
	pending(t, ch1)
	e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[1]}})
	if r := recv(t, ch1); r.Err != kerr.UnknownMemberID {
		t.Fatalf("left member's join %+v", r)
	}
	pending(t, chNew)
	ch0 := e.c.JoinGroup(joinReq(ids[0]))
	if r := recv(t, ch0); r.Err != nil || len(r.Members) != 2 || r.Generation != 2 {
		t.Fatalf("leader join %+v", r)
	}
	recv(t, chNew)
}
