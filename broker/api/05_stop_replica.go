package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// StopReplica (key 5): the controller stops (and with delete=true
// removes) replicas, on topic deletion and reassignment. Brokers only (with
// an authorizer: principals with ClusterAction on the cluster).
func init() { regKey(kmsg.NewPtrStopReplicaRequest(), 3, 3, (*Server).handleStopReplica) }

func (s *Server) handleStopReplica(c *Call) Reply {
	req := c.Req.(*kmsg.StopReplicaRequest)
	if !s.clusterAction(c) {
		resp := req.ResponseKind().(*kmsg.StopReplicaResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	return respond(s.d.Replicas.HandleStopReplica(req))
}
