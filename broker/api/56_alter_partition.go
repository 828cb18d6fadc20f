package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// AlterPartition (key 56): a leader proposes an ISR change; only the
// active controller answers (others NOT_CONTROLLER), fencing by partition
// epoch. Needs ClusterAction on the cluster (CLUSTER_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrAlterPartitionRequest(), 1, 1, (*Server).handleAlterPartition) }

// Requests for the controller: answered only by the active one.

func (s *Server) handleAlterPartition(c *Call) Reply {
	req := c.Req.(*kmsg.AlterPartitionRequest)
	if !s.authorizeCluster(c, acl.OpClusterAction) {
		resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	if !s.fromBroker(c) || s.notController() {
		resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
		resp.ErrorCode = kerr.NotController.Code
		return respond(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.AlterPartition(ctx, req) }, req)
}
