package api

import (
	"bytes"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// JoinGroup (key 11).
// Kafka's classic rebalance protocol: KIP-394 member ids (MEMBER_ID_REQUIRED
// from v4), KIP-345 static members (v5+), protocol selection by vote; the
// response waits in the coordinator until the rebalance completes.
// Needs Read on the group (GROUP_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrJoinGroupRequest(), 0, 9, (*Server).handleJoinGroup) }

// handleJoinGroup joins a member; the answer is deferred until the
// rebalance completes, which blocks only this connection (as Kafka mutes
// it) and never the coordinator or other groups.
func (s *Server) handleJoinGroup(c *Call) Reply {
	req := c.Req.(*kmsg.JoinGroupRequest)
	if !s.authorize(c, acl.OpRead, acl.Group, req.Group) {
		resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
		resp.ErrorCode, resp.Generation = kerr.GroupAuthorizationFailed.Code, -1
		return respond(resp)
	}
	jr := group.JoinRequest{
		Group:            req.Group,
		MemberID:         req.MemberID,
		ClientID:         c.ClientID(),
		ClientHost:       clientHost(c),
		SessionTimeout:   req.SessionTimeoutMillis,
		RebalanceTimeout: req.RebalanceTimeoutMillis,
		ProtocolType:     req.ProtocolType,
		// KIP-394 from v4, for dynamic members only.
		RequireKnownMemberID:   req.Version >= 4 && req.InstanceID == nil,
		SupportsSkipAssignment: req.Version >= 9,
	}
	if req.Version == 0 {
		// v0 has no rebalance timeout: the session timeout is used.
		jr.RebalanceTimeout = req.SessionTimeoutMillis
	}
	if req.Version >= 5 {
		jr.InstanceID = req.InstanceID
	}
	if req.Reason != nil {
		jr.Reason = *req.Reason
	}
	for _, p := range req.Protocols {
		// Cloned: the group keeps metadata long after this request.
		jr.Protocols = append(jr.Protocols, group.Protocol{Name: p.Name, Metadata: bytes.Clone(p.Metadata)})
	}
	ch := s.d.Groups.JoinGroup(jr)
	return func() Result {
		r := waitGroupAnswer(ch, s.d.Groups.Done(), group.JoinResult{Err: kerr.NotCoordinator, MemberID: req.MemberID, Generation: -1})
		resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
		resp.ErrorCode = code(r.Err)
		resp.Generation = r.Generation
		resp.ProtocolType = r.ProtocolType
		resp.Protocol = r.Protocol
		resp.LeaderID = r.LeaderID
		resp.MemberID = r.MemberID
		resp.SkipAssignment = r.SkipAssignment
		for _, m := range r.Members {
			rm := kmsg.NewJoinGroupResponseMember()
			rm.MemberID, rm.InstanceID, rm.ProtocolMetadata = m.MemberID, m.InstanceID, m.Metadata
			resp.Members = append(resp.Members, rm)
		}
		return Result{Resp: resp}
	}
}
