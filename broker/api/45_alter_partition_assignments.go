package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterPartitionReassignments (key 45), v0 (KIP-455): starts, replaces or
// cancels replica moves through the controller.

// handleAlterPartitionAssignments serves KIP-455 reassignment (v0; v1 adds
// AllowReplicationFactorChange, which a ZooKeeper-era controller never
// refused). Only the active controller answers; the others say
// NOT_CONTROLLER so the client finds it.
func (s *Server) handleAlterPartitionAssignments(c *Call) Reply {
	req := c.Req.(*kmsg.AlterPartitionAssignmentsRequest)
	if s.notController() {
		resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		resp.ErrorCode = kerr.NotController.Code
		return now(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) {
		return s.d.Controller.AlterPartitionAssignments(ctx, req)
	}, req)
}
