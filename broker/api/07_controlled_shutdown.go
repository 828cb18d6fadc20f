package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// ControlledShutdown (key 7): a broker asks the active controller
// to move its leaderships away before it stops. Other brokers answer
// NOT_CONTROLLER; the answer lists the partitions still led by the broker.
// Needs ClusterAction on the cluster (CLUSTER_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrControlledShutdownRequest(), 3, 3, (*Server).handleControlledShutdown) }

func (s *Server) handleControlledShutdown(c *Call) Reply {
	req := c.Req.(*kmsg.ControlledShutdownRequest)
	if !s.authorizeCluster(c, acl.OpClusterAction) {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	if !s.fromBroker(c) || s.notController() {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		resp.ErrorCode = kerr.NotController.Code
		return respond(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.ControlledShutdown(ctx, req) }, req)
}
