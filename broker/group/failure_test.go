package group

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// A failed write of the leader's assignment fails every waiting SyncGroup
// (with the error Kafka maps it to) and starts a new rebalance.
func TestAssignmentWriteFailure(t *testing.T) {
	cases := []struct {
		name      string
		appendErr error
		waitErr   error
		want      *kerr.Error
	}{
		{"lost leadership", kerr.NotLeaderForPartition, nil, kerr.NotCoordinator},
		{"too few replicas", kerr.NotEnoughReplicas, nil, kerr.CoordinatorNotAvailable},
		{"storage", kerr.KafkaStorageError, nil, kerr.NotCoordinator},
		{"replication timeout", nil, kerr.RequestTimedOut, kerr.RebalanceInProgress},
		{"too large", kerr.MessageTooLarge, nil, kerr.UnknownServerError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			a, cha := e.joinNew(nil)
			b, chb := e.joinNew(nil)
			e.clock.Advance(0)
			recv(t, cha)
			recv(t, chb)
			e.log.Mu.Lock()
			e.log.AppendErr, e.log.WaitErr = tc.appendErr, tc.waitErr
			e.log.Mu.Unlock()
			sb := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: b})
			sa := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 1, MemberID: a, Assignments: map[string][]byte{a: []byte("A"), b: []byte("B")}})
			errIs(t, "leader", recv(t, sa).Err, tc.want)
			errIs(t, "follower", recv(t, sb).Err, tc.want)
			if e.state() != PreparingRebalance {
				t.Fatalf("state %v", e.state())
			}
		})
	}
}

// When the leader does not rejoin in time another member leads the next
// generation.
func TestNewLeaderWhenLeaderMissesRebalance(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	req := joinReq(ids[1])
	req.Protocols = []Protocol{{Name: "range", Metadata: subscription("t1", "t2")}}
	ch := e.c.JoinGroup(req) // changed metadata: rebalance
	for range 6 {
		e.clock.Advance(5 * time.Second)
		e.heartbeat(ids[0], 1)
	}
	r := recv(t, ch)
	if r.Err != nil || r.LeaderID != ids[1] || len(r.Members) != 1 || r.Generation != 2 {
		t.Fatalf("join %+v", r)
	}
}

// A static member whose replacement cannot be persisted goes back to its
// old member id, and the new process is told the error.
func TestStaticReplacementWriteFailure(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.staticGroup(2)
	e.log.Mu.Lock()
	e.log.WaitErr = kerr.NotEnoughReplicasAfterAppend
	e.log.Mu.Unlock()
	r := recv(t, e.c.JoinGroup(staticReq("inst-1", "")))
	errIs(t, "replacement", r.Err, kerr.CoordinatorNotAvailable)
	inst := "inst-1"
	errIs(t, "old id", e.c.Heartbeat(HeartbeatRequest{Group: "g", Generation: 1, MemberID: ids[1], InstanceID: &inst}), nil)
	if e.state() != Stable {
		t.Fatalf("state %v", e.state())
	}
}

// A client retrying a JoinGroup whose answer it never read gets the new
// answer; the first waiter is released rather than left hanging.
func TestRetriedJoinReleasesFirstWaiter(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	first := e.c.JoinGroup(joinReq(ids[0]))
	second := e.c.JoinGroup(joinReq(ids[0]))
	errIs(t, "first", recv(t, first).Err, kerr.RebalanceInProgress)
	pending(t, second)
	recv(t, e.c.JoinGroup(joinReq(ids[1])))
	if r := recv(t, second); r.Err != nil || r.Generation != 2 {
		t.Fatalf("second %+v", r)
	}
}

func TestNewMemberJoinTimeout(t *testing.T) {
	// A new member that joined but whose rebalance keeps waiting (another
	// member holds it open) is dropped after NewMemberJoinTimeout.
	e := newEnv(t, func(c *Config) { c.NewMemberJoinTimeout = 20 * time.Second })
	ids := e.stableGroup(1)
	req := joinReq(ids[0])
	req.RebalanceTimeout = 60000
	_, chNew := e.joinNew(func(r *JoinRequest) { r.RebalanceTimeout = 60000 })
	for range 4 {
		// The old member stays alive but does not rejoin yet.
		e.clock.Advance(5 * time.Second)
		errIs(t, "heartbeat", e.heartbeat(ids[0], 1), kerr.RebalanceInProgress)
	}
	errIs(t, "expired new member", recv(t, chNew).Err, kerr.UnknownMemberID)
	if r := recv(t, e.c.JoinGroup(req)); r.Err != nil || len(r.Members) != 1 {
		t.Fatalf("rejoin %+v", r)
	}
}
