package api

import "github.com/twmb/franz-go/pkg/kmsg"

// DescribeGroups (key 15), v0-v5: state, protocol and members with their
// metadata and assignments; authorized operations are not returned.

// Group ACL operations (AclOperation codes READ 3, DELETE 6, DESCRIBE 8):
// without an authorizer every client may do all of them.
const groupAuthorizedOperations = 1<<3 | 1<<6 | 1<<8

func (s *Server) handleDescribeGroups(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, id := range req.Groups {
		d := s.d.Groups.DescribeGroup(id)
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.ErrorCode = id, code(d.Err)
		g.State, g.ProtocolType, g.Protocol = d.State, d.ProtocolType, d.Protocol
		if req.IncludeAuthorizedOperations {
			g.AuthorizedOperations = groupAuthorizedOperations
		}
		for _, m := range d.Members {
			gm := kmsg.NewDescribeGroupsResponseGroupMember()
			gm.MemberID, gm.InstanceID, gm.ClientID, gm.ClientHost = m.MemberID, m.InstanceID, m.ClientID, m.ClientHost
			gm.ProtocolMetadata, gm.MemberAssignment = m.Metadata, m.Assignment
			g.Members = append(g.Members, gm)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return now(resp)
}
