package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// ElectLeaders (key 43): preferred (type 0) or unclean (type 1, v1+).
// leader elections, run by the active controller; others answer
// NOT_CONTROLLER. Needs Alter on the cluster: otherwise
// CLUSTER_AUTHORIZATION_FAILED (v1+) and for every partition named.
func init() { regKey(kmsg.NewPtrElectLeadersRequest(), 0, 2, (*Server).handleElectLeaders) }

func (s *Server) handleElectLeaders(c *Call) Reply {
	req := c.Req.(*kmsg.ElectLeadersRequest)
	if !s.authorizeCluster(c, acl.OpAlter) {
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		for _, t := range req.Topics {
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewElectLeadersResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, kerr.ClusterAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return respond(resp)
	}
	if s.notController() {
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		resp.ErrorCode = kerr.NotController.Code
		return respond(resp)
	}
	if req.Version == 0 {
		req.ElectionType = 0 // v0 elects preferred leaders only
	}
	return s.controllerCall(func(ctx context.Context) (kmsg.Response, error) { return s.d.Controller.ElectLeaders(ctx, req) }, req)
}
