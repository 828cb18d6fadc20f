package group

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/group/offsetsrec"
)

func TestCommitValidation(t *testing.T) {
	inst := "inst"
	cases := []struct {
		name  string
		group bool // a stable group of one member exists
		req   func(id string) CommitRequest
		want  *kerr.Error
	}{
		{"simple commit, no group", false, func(string) CommitRequest { return simpleCommit("g", off("t", 0, 5)) }, nil},
		{"simple commit to a group with members", true, func(string) CommitRequest { return simpleCommit("g", off("t", 0, 5)) }, kerr.UnknownMemberID},
		{"member commit", true, func(id string) CommitRequest {
			return CommitRequest{Group: "g", Generation: 1, MemberID: id, RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 5)}}
		}, nil},
		{"member commit, old generation", true, func(id string) CommitRequest {
			return CommitRequest{Group: "g", Generation: 0, MemberID: id, RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 5)}}
		}, kerr.IllegalGeneration},
		{"unknown member", true, func(string) CommitRequest {
			return CommitRequest{Group: "g", Generation: 1, MemberID: "x", RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 5)}}
		}, kerr.UnknownMemberID},
		{"generation for a group we do not know", false, func(string) CommitRequest {
			return CommitRequest{Group: "g", Generation: 3, MemberID: "x", RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 5)}}
		}, kerr.IllegalGeneration},
		{"instance id alone is not simple", false, func(string) CommitRequest {
			return CommitRequest{Group: "g", Generation: -1, InstanceID: &inst, RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 5)}}
		}, kerr.UnknownMemberID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			id := ""
			if tc.group {
				id = e.stableGroup(1)[0]
			}
			errIs(t, "commit", e.commit(tc.req(id))[0], tc.want)
			want := int64(-1)
			if tc.want == nil {
				want = 5
			}
			if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != want {
				t.Fatalf("fetched %d, want %d", got, want)
			}
		})
	}
}

func TestCommitDuringCompletingRebalance(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	c0 := e.c.JoinGroup(joinReq(ids[0]))
	recv(t, e.c.JoinGroup(joinReq(ids[1])))
	recv(t, c0)
	errs := e.commit(CommitRequest{Group: "g", Generation: 2, MemberID: ids[0], RetentionMs: -1, Offsets: []CommitOffset{off("t", 0, 1)}})
	errIs(t, "commit", errs[0], kerr.RebalanceInProgress)
}

func TestCommitRecordsAndFetch(t *testing.T) {
	e := newEnv(t, nil)
	meta := "hello"
	o1 := off("t", 0, 10)
	o1.LeaderEpoch, o1.Metadata = 4, &meta
	o2 := off("t", 1, 20)
	big := strings.Repeat("m", 4097)
	o3 := off("t", 2, 30)
	o3.Metadata = &big
	errs := e.commit(simpleCommit("g", o1, o2, o3))
	if errs[0] != nil || errs[1] != nil || errs[2] != kerr.OffsetMetadataTooLarge {
		t.Fatalf("commit errors %v", errs)
	}
	res, err := e.c.FetchOffsets("g", nil, false)
	if err != nil || len(res) != 2 || res[0].Offset != 10 || res[0].LeaderEpoch != 4 || res[0].Metadata != "hello" || res[1].Offset != 20 || res[1].LeaderEpoch != -1 {
		t.Fatalf("fetch all: %+v %v", res, err)
	}
	if got := e.fetched("unknown", TopicPartition{Topic: "t", Partition: 0}); got[TopicPartition{Topic: "t", Partition: 0}] != -1 {
		t.Fatalf("unknown group: %v", got)
	}
	recs := e.log.records(t, 0)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	want := offsetsrec.OffsetValue{Version: 3, Offset: 10, LeaderEpoch: 4, Metadata: "hello", CommitTimestamp: e.clock.Now().UnixMilli(), ExpireTimestamp: -1}
	if recs[0].Key != offsetsrec.OffsetKey("g", "t", 0) || *recs[0].Offset != want {
		t.Fatalf("record %+v %+v", recs[0].Key, recs[0].Offset)
	}
	// OffsetCommit v2-v4 retention writes the v1 value with its expiry.
	r := simpleCommit("g", off("t", 0, 11))
	r.RetentionMs = 60000
	e.commit(r)
	recs = e.log.records(t, 0)
	if v := recs[len(recs)-1].Offset; v.Version != 1 || v.ExpireTimestamp != e.clock.Now().UnixMilli()+60000 {
		t.Fatalf("retention commit wrote %+v", v)
	}
	// OffsetCommit v1's per-partition timestamp is the commit time.
	o := off("t", 0, 12)
	o.CommitTimestamp = 1234
	e.commit(simpleCommit("g", o))
	recs = e.log.records(t, 0)
	if v := recs[len(recs)-1].Offset; v.CommitTimestamp != 1234 {
		t.Fatalf("v1 commit timestamp %+v", v)
	}
}

func TestCommitVisibleOnlyOnceReplicated(t *testing.T) {
	e := newEnv(t, nil)
	e.log.Hold = make(chan struct{})
	ch := e.c.CommitOffsets(simpleCommit("g", off("t", 0, 7)))
	pending(t, ch)
	if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != -1 {
		t.Fatalf("an unreplicated commit is visible: %d", got)
	}
	close(e.log.Hold)
	errIs(t, "commit", recv(t, ch)[0], nil)
	if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != 7 {
		t.Fatalf("fetched %d after replication", got)
	}
}

func TestCommitWriteErrors(t *testing.T) {
	cases := []struct {
		name      string
		appendErr error
		waitErr   error
		want      *kerr.Error
	}{
		{"timeout", nil, kerr.RequestTimedOut, kerr.RequestTimedOut},
		{"not leader", kerr.NotLeaderForPartition, nil, kerr.NotCoordinator},
		{"too few replicas", kerr.NotEnoughReplicas, nil, kerr.CoordinatorNotAvailable},
		{"after append", nil, kerr.NotEnoughReplicasAfterAppend, kerr.CoordinatorNotAvailable},
		{"too large", kerr.MessageTooLarge, nil, kerr.InvalidCommitOffsetSize},
		{"storage", kerr.KafkaStorageError, nil, kerr.NotCoordinator},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.log.AppendErr, e.log.WaitErr = tc.appendErr, tc.waitErr
			errIs(t, "commit", e.commit(simpleCommit("g", off("t", 0, 7)))[0], tc.want)
			if got := e.fetched("g", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != -1 {
				t.Fatalf("a failed commit is visible: %d", got)
			}
		})
	}
}

func TestDeleteOffsets(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(1) // subscribed to t1
	e.commit(CommitRequest{Group: "g", Generation: 1, MemberID: ids[0], RetentionMs: -1, Offsets: []CommitOffset{off("t1", 0, 1), off("t2", 0, 2)}})
	ch, gerr := e.c.DeleteOffsets("g", []TopicPartition{{Topic: "t1", Partition: 0}, {Topic: "t2", Partition: 0}})
	if gerr != nil {
		t.Fatal(gerr)
	}
	errs := recv(t, ch)
	if errs[0] != kerr.GroupSubscribedToTopic || errs[1] != nil {
		t.Fatalf("delete errors %v", errs)
	}
	got := e.fetched("g", TopicPartition{Topic: "t1", Partition: 0}, TopicPartition{Topic: "t2", Partition: 0})
	if got[TopicPartition{Topic: "t1", Partition: 0}] != 1 || got[TopicPartition{Topic: "t2", Partition: 0}] != -1 {
		t.Fatalf("after delete %v", got)
	}
	recs := e.log.records(t, 0)
	if last := recs[len(recs)-1]; !last.Tombstone || last.Key != offsetsrec.OffsetKey("g", "t2", 0) {
		t.Fatalf("last record %+v", last)
	}
	if _, err := e.c.DeleteOffsets("nope", nil); err != kerr.GroupIDNotFound {
		t.Fatalf("unknown group: %v", err)
	}
	// An Empty group loses everything, and with its last offset the group.
	e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[0]}})
	ch, _ = e.c.DeleteOffsets("g", []TopicPartition{{Topic: "t1", Partition: 0}})
	if errs := recv(t, ch); errs[0] != nil {
		t.Fatal(errs)
	}
	if e.state() != Dead {
		t.Fatalf("state %v: an empty group without offsets should be gone", e.state())
	}
	recs = e.log.records(t, 0)
	if last := recs[len(recs)-1]; !last.Tombstone || last.Key != offsetsrec.GroupKey("g") {
		t.Fatalf("last record %+v", last)
	}
}

func TestDeleteGroups(t *testing.T) {
	e := newEnv(t, nil)
	e.stableGroup(1)
	e.commit(simpleCommit("simple", off("t", 0, 1), off("t", 1, 2)))
	errs := recv(t, e.c.DeleteGroups([]string{"g", "simple", "nope"}))
	if errs[0] != kerr.NonEmptyGroup || errs[1] != nil || errs[2] != kerr.GroupIDNotFound {
		t.Fatalf("delete groups %v", errs)
	}
	if got := e.fetched("simple", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != -1 {
		t.Fatalf("deleted group's offset %d", got)
	}
	var tombstones []offsetsrec.Key
	for _, r := range e.log.records(t, 0) {
		if r.Tombstone {
			tombstones = append(tombstones, r.Key)
		}
	}
	want := []offsetsrec.Key{offsetsrec.OffsetKey("simple", "t", 0), offsetsrec.OffsetKey("simple", "t", 1), offsetsrec.GroupKey("simple")}
	if len(tombstones) != 3 || tombstones[0] != want[0] || tombstones[1] != want[1] || tombstones[2] != want[2] {
		t.Fatalf("tombstones %+v", tombstones)
	}
}

func TestExpireOffsets(t *testing.T) {
	e := newEnv(t, nil) // retention 1 h
	// A simple consumer's offsets expire by commit time.
	e.commit(simpleCommit("simple", off("t", 0, 1)))
	// A consumer group that went Empty keeps its offsets for the retention
	// counted from when it became Empty (KIP-211), however old the commit.
	ids := e.stableGroup(1)
	e.commit(CommitRequest{Group: "g", Generation: 1, MemberID: ids[0], RetentionMs: -1, Offsets: []CommitOffset{off("t1", 0, 1), off("other", 0, 1)}})
	e.advanceHeartbeating(30*time.Minute, ids[0])
	// An explicit retention wins over the default.
	r := simpleCommit("short", off("t", 0, 1))
	r.RetentionMs = 10 * 60 * 1000
	e.commit(r)
	e.advanceHeartbeating(20*time.Minute, ids[0])
	e.c.ExpireOffsets()
	if e.fetched("short", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}] != -1 {
		t.Fatal("an offset past its explicit retention survived")
	}
	e.advanceHeartbeating(15*time.Minute, ids[0]) // 65 min after the commits
	e.c.ExpireOffsets()
	if e.fetched("simple", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}] != -1 {
		t.Fatal("a simple consumer's old offset survived")
	}
	// The stable group keeps its subscribed topic, not the other one.
	got := e.fetched("g", TopicPartition{Topic: "t1", Partition: 0}, TopicPartition{Topic: "other", Partition: 0})
	if got[TopicPartition{Topic: "t1", Partition: 0}] != 1 || got[TopicPartition{Topic: "other", Partition: 0}] != -1 {
		t.Fatalf("stable group after expiry %v", got)
	}
	// Now the group empties; its offset lives another full retention.
	e.c.LeaveGroup("g", []LeavingMember{{MemberID: ids[0]}})
	e.clock.Advance(59 * time.Minute)
	e.c.ExpireOffsets()
	if e.fetched("g", TopicPartition{Topic: "t1", Partition: 0})[TopicPartition{Topic: "t1", Partition: 0}] != 1 {
		t.Fatal("an empty group's offset expired before the retention since it emptied")
	}
	e.clock.Advance(time.Minute)
	e.c.ExpireOffsets()
	if e.fetched("g", TopicPartition{Topic: "t1", Partition: 0})[TopicPartition{Topic: "t1", Partition: 0}] != -1 {
		t.Fatal("an empty group's offset outlived the retention")
	}
	if e.state() != Dead {
		t.Fatal("the empty group without offsets was not deleted")
	}
	overviews, err := e.c.ListGroups(nil)
	if err != nil || len(overviews) != 0 {
		t.Fatalf("groups left: %+v %v", overviews, err)
	}
	// Each expired offset and each deleted group has its tombstone.
	tomb := map[offsetsrec.Key]bool{}
	for _, r := range e.log.records(t, 0) {
		if r.Tombstone {
			tomb[r.Key] = true
		}
	}
	for _, k := range []offsetsrec.Key{offsetsrec.OffsetKey("simple", "t", 0), offsetsrec.GroupKey("simple"), offsetsrec.OffsetKey("short", "t", 0),
		offsetsrec.OffsetKey("g", "other", 0), offsetsrec.OffsetKey("g", "t1", 0), offsetsrec.GroupKey("g")} {
		if !tomb[k] {
			t.Errorf("no tombstone for %+v", k)
		}
	}
}

// advanceHeartbeating moves time on while member keeps its session.
func (e *env) advanceHeartbeating(d time.Duration, member string) {
	e.t.Helper()
	for step := 5 * time.Second; d > 0; d -= step {
		e.clock.Advance(min(step, d))
		errIs(e.t, "heartbeat", e.heartbeat(member, 1), nil)
	}
}

func TestDescribeAndList(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	e.commit(simpleCommit("simple", off("t", 0, 1)))
	d := e.c.DescribeGroup("g")
	if d.Err != nil || d.State != "Stable" || d.ProtocolType != "consumer" || d.Protocol != "range" || len(d.Members) != 2 ||
		d.Members[0].MemberID != ids[0] || string(d.Members[1].Assignment) != ids[1] || d.Members[0].ClientHost != "/127.0.0.1" || len(d.Members[0].Metadata) == 0 {
		t.Fatalf("describe %+v", d)
	}
	if d := e.c.DescribeGroup("nope"); d.Err != nil || d.State != "Dead" || len(d.Members) != 0 {
		t.Fatalf("describe unknown %+v", d)
	}
	// Mid-rebalance, no metadata or assignment is shown.
	e.c.JoinGroup(joinReq(ids[0]))
	if d := e.c.DescribeGroup("g"); d.State != "PreparingRebalance" || d.Protocol != "" || len(d.Members[1].Assignment) != 0 {
		t.Fatalf("describe rebalancing %+v", d)
	}
	cases := []struct {
		states []string
		want   []string
	}{
		{nil, []string{"g", "simple"}},
		{[]string{"empty"}, []string{"simple"}},
		{[]string{"PreparingRebalance", "Stable"}, []string{"g"}},
		{[]string{"Dead"}, nil},
	}
	for _, tc := range cases {
		got, err := e.c.ListGroups(tc.states)
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("list %v: %+v %v", tc.states, got, err)
		}
		for i := range got {
			if got[i].Group != tc.want[i] {
				t.Fatalf("list %v: %+v", tc.states, got)
			}
		}
	}
}
