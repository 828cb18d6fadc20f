package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// DescribeGroups (key 15): state, protocol and members with their
// metadata and assignments. Each group needs Describe
// (GROUP_AUTHORIZATION_FAILED, nothing else said); v3+ asks for the
// group's authorized operations, given for groups described without error.
func init() { regKey(kmsg.NewPtrDescribeGroupsRequest(), 0, 5, (*Server).handleDescribeGroups) }

func (s *Server) handleDescribeGroups(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, id := range req.Groups {
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group = id
		if !s.authorize(c, acl.OpDescribe, acl.Group, id) {
			g.ErrorCode = kerr.GroupAuthorizationFailed.Code
			resp.Groups = append(resp.Groups, g)
			continue
		}
		d := s.d.Groups.DescribeGroup(id)
		g.ErrorCode = code(d.Err)
		g.State, g.ProtocolType, g.Protocol = d.State, d.ProtocolType, d.Protocol
		if req.IncludeAuthorizedOperations && d.Err == nil {
			g.AuthorizedOperations = s.authorizedOperations(c, acl.Group, id)
		}
		for _, m := range d.Members {
			gm := kmsg.NewDescribeGroupsResponseGroupMember()
			gm.MemberID, gm.InstanceID, gm.ClientID, gm.ClientHost = m.MemberID, m.InstanceID, m.ClientID, m.ClientHost
			gm.ProtocolMetadata, gm.MemberAssignment = m.Metadata, m.Assignment
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return respond(resp)
}
