package e2e

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// rawGroupClient sends group requests at exact versions.
type rawGroupClient struct {
	t  *testing.T
	cl *wire.Client
}

func (r *rawGroupClient) do(req kmsg.Request, v int16) kmsg.Response {
	r.t.Helper()
	req.SetVersion(v)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := r.cl.Request(ctx, req)
	if err != nil {
		r.t.Fatalf("key %d v%d: %v", req.Key(), v, err)
	}
	return resp
}

func wantCode(t *testing.T, what string, code int16, want *kerr.Error) {
	t.Helper()
	w := int16(0)
	if want != nil {
		w = want.Code
	}
	if code != w {
		t.Fatalf("%s: error %v, want %v", what, kerr.ErrorForCode(code), want)
	}
}

// TestGroupEveryVersion walks a group through its life with raw requests
// at every advertised version of every group API (JoinGroup v0-v9 paired
// with the other APIs' versions, capped at their maxima), checking the
// version-dependent fields: KIP-394's MEMBER_ID_REQUIRED from JoinGroup
// v4, nullable protocol fields from v7, leader epochs from OffsetCommit v6
// and OffsetFetch v5, batched LeaveGroup from v3, batched OffsetFetch at
// v8, the ListGroups state filter at v4.
func TestGroupEveryVersion(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	const topic = "raw-versions"
	groupCreateTopic(t, c, topic, 1, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	wc, err := wire.Dial(ctx, c.Addrs()[0], "raw-client")
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	r := &rawGroupClient{t: t, cl: wc}
	meta := []byte("subscription-bytes")
	for v := int16(0); v <= 9; v++ {
		t.Run(fmt.Sprintf("join v%d", v), func(t *testing.T) {
			r.t = t
			group := fmt.Sprintf("raw-%d", v)
			fcV, syncV, hbV, leaveV, commitV, fetchV, descV, listV, delV := min(v, 4), min(v, 5), min(v, 4), min(v, 5), min(v, 8), min(v, 8), min(v, 5), min(v, 4), min(v, 2)

			testwait.For(t, 30*time.Second, "a coordinator", func() (bool, string) {
				fc := kmsg.NewPtrFindCoordinatorRequest()
				fc.CoordinatorKey, fc.CoordinatorKeys = group, []string{group}
				resp := r.do(fc, fcV).(*kmsg.FindCoordinatorResponse)
				code, node := resp.ErrorCode, resp.NodeID
				if fcV >= 4 {
					if len(resp.Coordinators) != 1 || resp.Coordinators[0].Key != group {
						t.Fatalf("batched FindCoordinator answered %+v", resp.Coordinators)
					}
					code, node = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
				}
				return code == 0 && node == 1, fmt.Sprintf("error %v node %d", kerr.ErrorForCode(code), node)
			})

			if commitV == 0 {
				// v0 commits are simple commits; the group has no members yet.
				oc := kmsg.NewPtrOffsetCommitRequest()
				oc.Group = group
				ot := kmsg.NewOffsetCommitRequestTopic()
				ot.Topic = topic
				op := kmsg.NewOffsetCommitRequestTopicPartition()
				op.Offset, op.Metadata = 7, kmsg.StringPtr("v0")
				ot.Partitions = append(ot.Partitions, op)
				oc.Topics = append(oc.Topics, ot)
				wantCode(t, "v0 commit", r.do(oc, 0).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, nil)
			}

			join := kmsg.NewPtrJoinGroupRequest()
			join.Group, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis, join.ProtocolType = group, 10000, 10000, "consumer"
			p := kmsg.NewJoinGroupRequestProtocol()
			p.Name, p.Metadata = "range", meta
			join.Protocols = append(join.Protocols, p)
			jr := r.do(join, v).(*kmsg.JoinGroupResponse)
			if v >= 4 {
				wantCode(t, "first join", jr.ErrorCode, kerr.MemberIDRequired)
				if jr.MemberID == "" {
					t.Fatal("MEMBER_ID_REQUIRED without a member id")
				}
				join.MemberID = jr.MemberID
				jr = r.do(join, v).(*kmsg.JoinGroupResponse)
			}
			wantCode(t, "join", jr.ErrorCode, nil)
			member := jr.MemberID
			if jr.Generation != 1 || jr.LeaderID != member || jr.Protocol == nil || *jr.Protocol != "range" ||
				len(jr.Members) != 1 || jr.Members[0].MemberID != member || !bytes.Equal(jr.Members[0].ProtocolMetadata, meta) {
				t.Fatalf("join answer %+v", jr)
			}
			if v >= 7 && (jr.ProtocolType == nil || *jr.ProtocolType != "consumer") {
				t.Fatalf("v%d join protocol type %v", v, jr.ProtocolType)
			}

			sync := kmsg.NewPtrSyncGroupRequest()
			sync.Group, sync.Generation, sync.MemberID = group, 1, member
			sync.ProtocolType, sync.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr("range")
			a := kmsg.NewSyncGroupRequestGroupAssignment()
			a.MemberID, a.MemberAssignment = member, []byte("assignment")
			sync.GroupAssignment = append(sync.GroupAssignment, a)
			sr := r.do(sync, syncV).(*kmsg.SyncGroupResponse)
			wantCode(t, "sync", sr.ErrorCode, nil)
			if string(sr.MemberAssignment) != "assignment" || (syncV >= 5 && (sr.Protocol == nil || *sr.Protocol != "range")) {
				t.Fatalf("sync answer %+v", sr)
			}

			hb := kmsg.NewPtrHeartbeatRequest()
			hb.Group, hb.Generation, hb.MemberID = group, 1, member
			wantCode(t, "heartbeat", r.do(hb, hbV).(*kmsg.HeartbeatResponse).ErrorCode, nil)
			hb.Generation = 0
			wantCode(t, "stale heartbeat", r.do(hb, hbV).(*kmsg.HeartbeatResponse).ErrorCode, kerr.IllegalGeneration)

			wantOffset, wantEpoch := int64(7), int32(-1)
			if commitV > 0 {
				oc := kmsg.NewPtrOffsetCommitRequest()
				oc.Group, oc.Generation, oc.MemberID = group, 1, member
				ot := kmsg.NewOffsetCommitRequestTopic()
				ot.Topic = topic
				op := kmsg.NewOffsetCommitRequestTopicPartition()
				op.Offset, op.LeaderEpoch, op.Metadata = 42, 3, kmsg.StringPtr("meta")
				ot.Partitions = append(ot.Partitions, op)
				unknown := kmsg.NewOffsetCommitRequestTopic()
				unknown.Topic = "no-such-topic"
				unknown.Partitions = append(unknown.Partitions, op)
				oc.Topics = append(oc.Topics, ot, unknown)
				cr := r.do(oc, commitV).(*kmsg.OffsetCommitResponse)
				wantCode(t, "commit", cr.Topics[0].Partitions[0].ErrorCode, nil)
				wantCode(t, "commit to an unknown topic", cr.Topics[1].Partitions[0].ErrorCode, kerr.UnknownTopicOrPartition)
				wantOffset = 42
				if commitV >= 6 && fetchV >= 5 {
					wantEpoch = 3
				}
			}

			of := kmsg.NewPtrOffsetFetchRequest()
			var fp kmsg.OffsetFetchResponseTopicPartition
			if fetchV >= 8 {
				rg := kmsg.NewOffsetFetchRequestGroup()
				rg.Group = group
				gt := kmsg.NewOffsetFetchRequestGroupTopic()
				gt.Topic, gt.Partitions = topic, []int32{0, 5}
				rg.Topics = append(rg.Topics, gt)
				of.Groups = append(of.Groups, rg)
				fr := r.do(of, fetchV).(*kmsg.OffsetFetchResponse)
				if len(fr.Groups) != 1 || fr.Groups[0].ErrorCode != 0 || len(fr.Groups[0].Topics) != 1 || len(fr.Groups[0].Topics[0].Partitions) != 2 {
					t.Fatalf("batched fetch %+v", fr)
				}
				g := fr.Groups[0].Topics[0].Partitions
				fp = kmsg.OffsetFetchResponseTopicPartition{Partition: g[0].Partition, Offset: g[0].Offset, LeaderEpoch: g[0].LeaderEpoch, Metadata: g[0].Metadata}
				if g[1].Offset != -1 || g[1].Metadata == nil || *g[1].Metadata != "" {
					t.Fatalf("uncommitted partition %+v", g[1])
				}
			} else {
				of.Group = group
				ft := kmsg.NewOffsetFetchRequestTopic()
				ft.Topic, ft.Partitions = topic, []int32{0}
				of.Topics = append(of.Topics, ft)
				fr := r.do(of, fetchV).(*kmsg.OffsetFetchResponse)
				wantCode(t, "fetch", fr.ErrorCode, nil)
				fp = fr.Topics[0].Partitions[0]
				wantCode(t, "fetch partition", fp.ErrorCode, nil)
			}
			if fp.Offset != wantOffset || (fetchV >= 5 && fp.LeaderEpoch != wantEpoch) {
				t.Fatalf("fetched %+v, want offset %d epoch %d", fp, wantOffset, wantEpoch)
			}

			dg := kmsg.NewPtrDescribeGroupsRequest()
			dg.Groups, dg.IncludeAuthorizedOperations = []string{group}, true
			d := r.do(dg, descV).(*kmsg.DescribeGroupsResponse).Groups[0]
			if d.ErrorCode != 0 || d.State != "Stable" || d.Protocol != "range" || len(d.Members) != 1 ||
				string(d.Members[0].MemberAssignment) != "assignment" || d.Members[0].ClientID != "raw-client" || d.Members[0].ClientHost != "/127.0.0.1" {
				t.Fatalf("describe %+v", d)
			}
			if descV >= 3 && d.AuthorizedOperations <= 0 {
				t.Fatalf("authorized operations %d", d.AuthorizedOperations)
			}

			lg := kmsg.NewPtrListGroupsRequest()
			lg.StatesFilter = []string{"Stable"}
			lr := r.do(lg, listV).(*kmsg.ListGroupsResponse)
			if !slices.ContainsFunc(lr.Groups, func(g kmsg.ListGroupsResponseGroup) bool { return g.Group == group }) || lr.ErrorCode != 0 {
				t.Fatalf("list %+v", lr)
			}
			if listV >= 4 {
				lg.StatesFilter = []string{"Empty"}
				lr = r.do(lg, listV).(*kmsg.ListGroupsResponse)
				if slices.ContainsFunc(lr.Groups, func(g kmsg.ListGroupsResponseGroup) bool { return g.Group == group }) {
					t.Fatalf("the Empty filter lists a Stable group: %+v", lr)
				}
			}

			dl := kmsg.NewPtrDeleteGroupsRequest()
			dl.Groups = []string{group}
			wantCode(t, "delete a group with members", r.do(dl, delV).(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode, kerr.NonEmptyGroup)

			lv := kmsg.NewPtrLeaveGroupRequest()
			lv.Group, lv.MemberID = group, member
			lm := kmsg.NewLeaveGroupRequestMember()
			lm.MemberID = member
			lv.Members = append(lv.Members, lm)
			lres := r.do(lv, leaveV).(*kmsg.LeaveGroupResponse)
			wantCode(t, "leave", lres.ErrorCode, nil)
			if leaveV >= 3 && (len(lres.Members) != 1 || lres.Members[0].ErrorCode != 0 || lres.Members[0].MemberID != member) {
				t.Fatalf("batched leave %+v", lres)
			}
			if d := r.do(dg, descV).(*kmsg.DescribeGroupsResponse).Groups[0]; d.State != "Empty" || len(d.Members) != 0 {
				t.Fatalf("after leave %+v", d)
			}
			wantCode(t, "delete", r.do(dl, delV).(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode, nil)
			wantCode(t, "delete again", r.do(dl, delV).(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode, kerr.GroupIDNotFound)
		})
	}
	t.Run("offset delete v0", func(t *testing.T) {
		r.t = t
		const group = "raw-offset-delete"
		oc := kmsg.NewPtrOffsetCommitRequest()
		oc.Group = group
		ot := kmsg.NewOffsetCommitRequestTopic()
		ot.Topic = topic
		op := kmsg.NewOffsetCommitRequestTopicPartition()
		op.Offset = 9
		ot.Partitions = append(ot.Partitions, op)
		oc.Topics = append(oc.Topics, ot)
		wantCode(t, "commit", r.do(oc, 2).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, nil)
		od := kmsg.NewPtrOffsetDeleteRequest()
		od.Group = group
		dt := kmsg.NewOffsetDeleteRequestTopic()
		dt.Topic = topic
		dt.Partitions = append(dt.Partitions, kmsg.OffsetDeleteRequestTopicPartition{Partition: 0})
		od.Topics = append(od.Topics, dt)
		dr := r.do(od, 0).(*kmsg.OffsetDeleteResponse)
		if dr.ErrorCode != 0 || dr.Topics[0].Partitions[0].ErrorCode != 0 {
			t.Fatalf("offset delete %+v", dr)
		}
		of := kmsg.NewPtrOffsetFetchRequest()
		of.Group = group
		fr := r.do(of, 7).(*kmsg.OffsetFetchResponse) // null topics: all
		if fr.ErrorCode != 0 || len(fr.Topics) != 0 {
			t.Fatalf("offsets left: %+v", fr)
		}
		od.Group = "no-such-group"
		wantCode(t, "unknown group", r.do(od, 0).(*kmsg.OffsetDeleteResponse).ErrorCode, kerr.GroupIDNotFound)
	})
	t.Run("transaction coordinator", func(t *testing.T) {
		r.t = t
		fc := kmsg.NewPtrFindCoordinatorRequest()
		fc.CoordinatorKey, fc.CoordinatorType = "txn", 1
		wantCode(t, "transaction key", r.do(fc, 3).(*kmsg.FindCoordinatorResponse).ErrorCode, kerr.CoordinatorNotAvailable)
	})
}
