package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteGroups (key 42), v0-v2: removes empty groups and their offsets
// (tombstones in __consumer_offsets); non-empty groups get NON_EMPTY_GROUP.

// handleDeleteGroups deletes Empty groups; the answer waits for their
// tombstones to be replicated.
func (s *Server) handleDeleteGroups(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteGroupsRequest)
	ch := s.d.Groups.DeleteGroups(req.Groups)
	return func() Result {
		errs := waitGroupAnswer(ch, s.d.Groups.Done(), nil)
		resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
		for i, id := range req.Groups {
			g := kmsg.NewDeleteGroupsResponseGroup()
			g.Group = id
			g.ErrorCode = kerr.NotCoordinator.Code
			if errs != nil {
				g.ErrorCode = code(errs[i])
			}
			resp.Groups = append(resp.Groups, g)
		}
		return Result{Resp: resp}
	}
}
