package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// DeleteGroups (key 42): removes empty groups and their offsets
// (tombstones in __consumer_offsets); non-empty groups get NON_EMPTY_GROUP.
// Each group needs Delete (GROUP_AUTHORIZATION_FAILED, left untouched).
func init() { regKey(kmsg.NewPtrDeleteGroupsRequest(), 0, 2, (*Server).handleDeleteGroups) }

// handleDeleteGroups deletes Empty groups; the answer waits for their
// tombstones to be replicated.
func (s *Server) handleDeleteGroups(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteGroupsRequest)
	var deletable []string
	refused := map[string]bool{}
	for _, id := range req.Groups {
		if s.authorize(c, acl.OpDelete, acl.Group, id) {
			deletable = append(deletable, id)
		} else {
			refused[id] = true
		}
	}
	ch := s.d.Groups.DeleteGroups(deletable)
	return func() Result {
		errs := waitGroupAnswer(ch, s.d.Groups.Done(), nil)
		resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
		i := 0
		for _, id := range req.Groups {
			g := kmsg.NewDeleteGroupsResponseGroup()
			g.Group = id
			switch {
			case refused[id]:
				g.ErrorCode = kerr.GroupAuthorizationFailed.Code
			case errs == nil:
				g.ErrorCode = kerr.NotCoordinator.Code
				i++
			default:
				g.ErrorCode = code(errs[i])
				i++
			}
			resp.Groups = append(resp.Groups, g)
		}
		return Result{Resp: resp}
	}
}
