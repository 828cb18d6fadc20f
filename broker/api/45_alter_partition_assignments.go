package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
)

// AlterPartitionReassignments (key 45, KIP-455): starts, replaces or
// cancels replica moves through the controller.
func init() {
	regKey(kmsg.NewPtrAlterPartitionAssignmentsRequest(), 0, 0, (*Server).handleAlterPartitionAssignments)
}

// handleAlterPartitionAssignments serves KIP-455 reassignment (v0; v1 adds
// AllowReplicationFactorChange, which a ZooKeeper-era controller never
// refused). Only the active controller answers; the others say
// NOT_CONTROLLER so the client finds it.
//
// It needs Alter on the cluster: otherwise CLUSTER_AUTHORIZATION_FAILED for
// the request and every partition named.
func (s *Server) handleAlterPartitionAssignments(c *Call) Reply {
	req := c.Req.(*kmsg.AlterPartitionAssignmentsRequest)
	if !s.authorizeCluster(c, acl.OpAlter) {
		resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		msg := kmsg.StringPtr(kafkaerr.Message(errClusterAuthorization))
		resp.ErrorCode, resp.ErrorMessage = kerr.ClusterAuthorizationFailed.Code, msg
		for _, t := range req.Topics {
			rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.ErrorMessage = p.Partition, kerr.ClusterAuthorizationFailed.Code, msg
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return respond(resp)
	}
	if s.notController() {
		resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		resp.ErrorCode = kerr.NotController.Code
		return respond(resp)
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) {
		return s.d.Controller.AlterPartitionAssignments(ctx, req)
	}, req)
}
