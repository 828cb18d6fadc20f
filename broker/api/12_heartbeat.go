package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// Heartbeat (key 12): keeps a member's session; answers
// REBALANCE_IN_PROGRESS while the group rebalances. Needs Read on the group.
func init() { regKey(kmsg.NewPtrHeartbeatRequest(), 0, 4, (*Server).handleHeartbeat) }

func (s *Server) handleHeartbeat(c *Call) Reply {
	req := c.Req.(*kmsg.HeartbeatRequest)
	hr := group.HeartbeatRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID}
	if req.Version >= 3 {
		hr.InstanceID = req.InstanceID
	}
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	if !s.authorize(c, acl.OpRead, acl.Group, req.Group) {
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		return respond(resp)
	}
	resp.ErrorCode = code(s.d.Groups.Heartbeat(hr))
	return respond(resp)
}
