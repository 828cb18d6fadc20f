package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
)

// DeleteAcls (key 31): removes the ACL bindings each filter
// matches, from the metadata store with change notifications, and answers
// per filter the bindings it removed (a binding several filters match is
// listed under the first). v0 filters are literal. Needs Alter on the
// cluster (CLUSTER_AUTHORIZATION_FAILED for every filter); without an
// authorizer SECURITY_DISABLED; a filter naming UNKNOWN enums is
// INVALID_REQUEST alone.
func init() { regKey(kmsg.NewPtrDeleteACLsRequest(), 0, 2, (*Server).handleDeleteACLs) }

func (s *Server) handleDeleteACLs(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteACLsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteACLsResponse)
	results := make([]kmsg.DeleteACLsResponseResult, len(req.Filters))
	for i := range results {
		results[i] = kmsg.NewDeleteACLsResponseResult()
	}
	fail := func(i int, err error) {
		results[i].ErrorCode, results[i].ErrorMessage = errCode(err), kmsg.StringPtr(kafkaerr.Message(err))
	}
	if refusal := s.aclChangeRefused(c); refusal != nil {
		for i := range results {
			fail(i, refusal)
		}
		resp.Results = results
		return respond(resp)
	}
	var filters []acl.Filter
	var slots []int
	for i, rf := range req.Filters {
		f := acl.Filter{
			Pattern: acl.PatternFilter{Type: rf.ResourceType, Name: rf.ResourceName, PatternType: rf.ResourcePatternType},
			Entry:   acl.EntryFilter{Principal: rf.Principal, Host: rf.Host, Operation: rf.Operation, Permission: rf.PermissionType},
		}
		if f.Unknown() {
			fail(i, refuse(kerr.InvalidRequest, "Filter contain UNKNOWN elements"))
			continue
		}
		filters = append(filters, f)
		slots = append(slots, i)
	}
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		for k, deleted := range s.d.Authorizer.DeleteACLs(ctx, filters) {
			r := &results[slots[k]]
			for _, d := range deleted {
				m := kmsg.NewDeleteACLsResponseResultMatchingACL()
				if d.Err != nil {
					s.log.Warn("deleting ACLs failed", "err", d.Err)
					m.ErrorCode = errCode(d.Err)
				}
				p, e := d.Binding.Pattern, d.Binding.Entry
				m.ResourceType, m.ResourceName, m.ResourcePatternType = p.Type, p.Name, p.PatternType
				m.Principal, m.Host, m.Operation, m.PermissionType = e.Principal, e.Host, e.Operation, e.Permission
				r.MatchingACLs = append(r.MatchingACLs, m)
			}
		}
		resp.Results = results
		return Result{Resp: resp}
	}
}
