package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// ListGroups (key 16): the groups this broker coordinates; v4 filters
// by state. With Describe on the cluster every group is listed, else only
// those the principal may describe.
func init() { regKey(kmsg.NewPtrListGroupsRequest(), 0, 4, (*Server).handleListGroups) }

// handleListGroups lists the groups this broker coordinates; v4 filters by
// state.
func (s *Server) handleListGroups(c *Call) Reply {
	req := c.Req.(*kmsg.ListGroupsRequest)
	resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
	var states []string
	if req.Version >= 4 {
		states = req.StatesFilter
	}
	groups, err := s.d.Groups.ListGroups(states)
	resp.ErrorCode = code(err)
	all := s.authorizeQuiet(c, acl.OpDescribe, acl.Cluster, acl.ClusterName)
	for _, g := range groups {
		if !all && !s.authorizeQuiet(c, acl.OpDescribe, acl.Group, g.Group) {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState = g.Group, g.ProtocolType, g.State
		resp.Groups = append(resp.Groups, lg)
	}
	return respond(resp)
}
