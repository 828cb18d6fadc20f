package api

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
)

// CreateAcls (key 30): adds ACL bindings, written to the metadata
// store (/kafka-acl...) with a change notification every broker follows;
// this broker's cache has them when it answers. v0 creates literal
// patterns only. Needs Alter on the cluster (CLUSTER_AUTHORIZATION_FAILED
// for every creation); without an authorizer SECURITY_DISABLED. As Kafka,
// each creation fails alone with INVALID_REQUEST when the cluster resource
// is not named kafka-cluster, the name is empty, or the binding cannot be
// stored (ANY/MATCH/UNKNOWN enums, a '/' in the name, a principal not of
// the form Type:Name).
func init() { regKey(kmsg.NewPtrCreateACLsRequest(), 0, 2, (*Server).handleCreateACLs) }

func (s *Server) handleCreateACLs(c *Call) Reply {
	req := c.Req.(*kmsg.CreateACLsRequest)
	resp := req.ResponseKind().(*kmsg.CreateACLsResponse)
	results := make([]kmsg.CreateACLsResponseResult, len(req.Creations))
	set := func(i int, err error) {
		results[i] = kmsg.NewCreateACLsResponseResult()
		if err != nil {
			results[i].ErrorCode = errCode(err)
			if errCode(err) != kerr.UnknownServerError.Code {
				results[i].ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
			}
		}
	}
	if refusal := s.aclChangeRefused(c); refusal != nil {
		for i := range results {
			set(i, refusal)
		}
		resp.Results = results
		return respond(resp)
	}
	var bindings []acl.Binding
	var slots []int
	for i, cr := range req.Creations {
		switch {
		case cr.ResourceType == acl.Cluster && cr.ResourceName != acl.ClusterName:
			set(i, refuse(kerr.InvalidRequest, "The only valid name for the CLUSTER resource is %s", acl.ClusterName))
		case cr.ResourceName == "":
			set(i, refuse(kerr.InvalidRequest, "Invalid empty resource name"))
		default:
			bindings = append(bindings, acl.Binding{
				Pattern: acl.Pattern{Type: cr.ResourceType, Name: cr.ResourceName, PatternType: cr.ResourcePatternType},
				Entry:   acl.Entry{Principal: cr.Principal, Host: cr.Host, Operation: cr.Operation, Permission: cr.PermissionType},
			})
			slots = append(slots, i)
		}
	}
	return func() Result {
		// The store writes run off the connection's reader.
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		for k, err := range s.d.Authorizer.CreateACLs(ctx, bindings) {
			if errors.Is(err, acl.ErrInvalid) {
				s.log.Debug("refused ACL creation", "err", err)
				err = refuse(kerr.InvalidRequest, "Failed to create ACL")
			} else if err != nil {
				s.log.Warn("creating ACLs failed", "err", err)
			}
			set(slots[k], err)
		}
		resp.Results = results
		return Result{Resp: resp}
	}
}

// aclChangeRefused is why CreateAcls and DeleteAcls are refused as a whole:
// no Alter on the cluster, or no authorizer to keep ACLs.
func (s *Server) aclChangeRefused(c *Call) error {
	switch {
	case !s.authorizeCluster(c, acl.OpAlter):
		return errClusterAuthorization
	case s.d.Authorizer == nil:
		return refuse(kerr.SecurityDisabled, "No Authorizer is configured.")
	}
	return nil
}
