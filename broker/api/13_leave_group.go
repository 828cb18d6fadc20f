package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// LeaveGroup (key 13): one member (v0-v2) or a batch of members
// (v3+, KIP-345) leave, which starts a rebalance. Needs Read on the group.
func init() { regKey(kmsg.NewPtrLeaveGroupRequest(), 0, 5, (*Server).handleLeaveGroup) }

// handleLeaveGroup removes members: one by member id before v3, a batch
// (possibly by instance id alone) from v3.
func (s *Server) handleLeaveGroup(c *Call) Reply {
	req := c.Req.(*kmsg.LeaveGroupRequest)
	resp := req.ResponseKind().(*kmsg.LeaveGroupResponse)
	if !s.authorize(c, acl.OpRead, acl.Group, req.Group) {
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		return respond(resp)
	}
	var members []group.LeavingMember
	if req.Version < 3 {
		members = []group.LeavingMember{{MemberID: req.MemberID}}
	} else {
		for _, m := range req.Members {
			lm := group.LeavingMember{MemberID: m.MemberID, InstanceID: m.InstanceID}
			if m.Reason != nil {
				lm.Reason = *m.Reason
			}
			members = append(members, lm)
		}
	}
	res := s.d.Groups.LeaveGroup(req.Group, members)
	resp.ErrorCode = code(res.Err)
	if req.Version < 3 {
		// One member: its error is the response's (Kafka's rule for v0-v2).
		if res.Err == nil && len(res.Members) == 1 {
			resp.ErrorCode = code(res.Members[0])
		}
		return respond(resp)
	}
	for i, e := range res.Members {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID, rm.InstanceID, rm.ErrorCode = members[i].MemberID, members[i].InstanceID, code(e)
		resp.Members = append(resp.Members, rm)
	}
	return respond(resp)
}
