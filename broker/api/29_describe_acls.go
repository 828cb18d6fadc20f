package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
)

// DescribeAcls (key 29): the ACL bindings a filter matches, from
// this broker's authorizer cache, grouped by resource pattern in Kafka's
// order (resource type, pattern type, name descending). v0 knows literal
// patterns only (its filter is LITERAL). Needs Describe on the cluster
// (CLUSTER_AUTHORIZATION_FAILED); without an authorizer the answer is
// SECURITY_DISABLED; a filter naming UNKNOWN (or, for Kafka 2.8,
// nonexistent) enums is INVALID_REQUEST.
func init() { regKey(kmsg.NewPtrDescribeACLsRequest(), 0, 2, (*Server).handleDescribeACLs) }

func (s *Server) handleDescribeACLs(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeACLsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeACLsResponse)
	fail := func(err error) Reply {
		resp.ErrorCode, resp.ErrorMessage = errCode(err), kmsg.StringPtr(kafkaerr.Message(err))
		return respond(resp)
	}
	if !s.authorizeCluster(c, acl.OpDescribe) {
		return fail(errClusterAuthorization)
	}
	if s.d.Authorizer == nil {
		return fail(refuse(kerr.SecurityDisabled, "No Authorizer is configured on the broker"))
	}
	f := acl.Filter{
		Pattern: acl.PatternFilter{Type: req.ResourceType, Name: req.ResourceName, PatternType: req.ResourcePatternType},
		Entry:   acl.EntryFilter{Principal: req.Principal, Host: req.Host, Operation: req.Operation, Permission: req.PermissionType},
	}
	if f.Unknown() {
		return fail(refuse(kerr.InvalidRequest, "Filter contain UNKNOWN elements"))
	}
	for _, b := range s.d.Authorizer.ACLs(f) {
		p := b.Pattern
		if n := len(resp.Resources); n == 0 || !sameResource(resp.Resources[n-1], p) {
			r := kmsg.NewDescribeACLsResponseResource()
			r.ResourceType, r.ResourceName, r.ResourcePatternType = p.Type, p.Name, p.PatternType
			resp.Resources = append(resp.Resources, r)
		}
		r := &resp.Resources[len(resp.Resources)-1]
		e := kmsg.NewDescribeACLsResponseResourceACL()
		e.Principal, e.Host, e.Operation, e.PermissionType = b.Entry.Principal, b.Entry.Host, b.Entry.Operation, b.Entry.Permission
		r.ACLs = append(r.ACLs, e)
	}
	return respond(resp)
}

func sameResource(r kmsg.DescribeACLsResponseResource, p acl.Pattern) bool {
	return r.ResourceType == p.Type && r.ResourceName == p.Name && r.ResourcePatternType == p.PatternType
}
