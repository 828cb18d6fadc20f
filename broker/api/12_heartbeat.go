package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/group"
)

// Heartbeat (key 12), v0-v4: keeps a member's session; answers
// REBALANCE_IN_PROGRESS while the group rebalances.

func (s *Server) handleHeartbeat(c *Call) Reply {
	req := c.Req.(*kmsg.HeartbeatRequest)
	hr := group.HeartbeatRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID}
	if req.Version >= 3 {
		hr.InstanceID = req.InstanceID
	}
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	resp.ErrorCode = code(s.d.Groups.Heartbeat(hr))
	return now(resp)
}
