package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// LeaderAndIsr (key 4): the controller's request making this
// broker leader or follower of partitions. Honoured only from brokers (with
// an authorizer: principals with ClusterAction on the cluster);
// stale controller epochs get STALE_CONTROLLER_EPOCH, stale leader epochs
// are skipped per partition.
func init() { regKey(kmsg.NewPtrLeaderAndISRRequest(), 5, 5, (*Server).handleLeaderAndISR) }

func (s *Server) handleLeaderAndISR(c *Call) Reply {
	req := c.Req.(*kmsg.LeaderAndISRRequest)
	if !s.clusterAction(c) {
		resp := req.ResponseKind().(*kmsg.LeaderAndISRResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	return respond(s.d.Replicas.HandleLeaderAndISR(req))
}
