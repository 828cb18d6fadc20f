package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
)

// ListPartitionReassignments (key 46, KIP-455): moves in progress with
// their adding and removing replicas.
func init() {
	regKey(kmsg.NewPtrListPartitionReassignmentsRequest(), 0, 0, (*Server).handleListPartitionReassignments)
}

// handleListPartitionReassignments lists the moves in flight (KIP-455);
// only the active controller knows them. Needs Describe on the cluster
// (CLUSTER_AUTHORIZATION_FAILED).
func (s *Server) handleListPartitionReassignments(c *Call) Reply {
	req := c.Req.(*kmsg.ListPartitionReassignmentsRequest)
	if !s.authorizeCluster(c, acl.OpDescribe) {
		resp := req.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		resp.ErrorCode, resp.ErrorMessage = kerr.ClusterAuthorizationFailed.Code, kmsg.StringPtr(kafkaerr.Message(errClusterAuthorization))
		return respond(resp)
	}
	if s.notController() {
		resp := req.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		resp.ErrorCode = kerr.NotController.Code
		return respond(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) {
		return s.d.Controller.ListPartitionReassignments(ctx, req)
	}, req)
}
