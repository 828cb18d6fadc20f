package api

import (
	"bytes"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// SyncGroup (key 14): the leader hands in assignments and every member
// waits for its own; v5 checks protocol type and name. Needs Read on the
// group.
func init() { regKey(kmsg.NewPtrSyncGroupRequest(), 0, 5, (*Server).handleSyncGroup) }

// handleSyncGroup delivers the leader's assignment; followers' answers
// wait (deferred) until the leader's has been written.
func (s *Server) handleSyncGroup(c *Call) Reply {
	req := c.Req.(*kmsg.SyncGroupRequest)
	if !s.authorize(c, acl.OpRead, acl.Group, req.Group) {
		resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
		resp.ErrorCode, resp.MemberAssignment = kerr.GroupAuthorizationFailed.Code, []byte{}
		return respond(resp)
	}
	sr := group.SyncRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID}
	if req.Version >= 3 {
		sr.InstanceID = req.InstanceID
	}
	if req.Version >= 5 {
		sr.ProtocolType, sr.Protocol = req.ProtocolType, req.Protocol
	}
	if len(req.GroupAssignment) > 0 {
		sr.Assignments = make(map[string][]byte, len(req.GroupAssignment))
		for _, a := range req.GroupAssignment {
			sr.Assignments[a.MemberID] = bytes.Clone(a.MemberAssignment)
		}
	}
	ch := s.d.Groups.SyncGroup(sr)
	return func() Result {
		r := waitGroupAnswer(ch, s.d.Groups.Done(), group.SyncResult{Err: kerr.NotCoordinator})
		resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
		resp.ErrorCode = code(r.Err)
		resp.ProtocolType, resp.Protocol = r.ProtocolType, r.Protocol
		resp.MemberAssignment = r.Assignment
		if resp.MemberAssignment == nil {
			resp.MemberAssignment = []byte{}
		}
		return Result{Resp: resp}
	}
}
