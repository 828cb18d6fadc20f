package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Inter-broker requests are honoured only from brokers: in process, or on
// the inter-broker listener.
func (s *Server) fromBroker(c *Call) bool {
	return c.Conn == nil || c.Conn.Listener == s.d.InterBrokerListener
}

func (s *Server) handleLeaderAndISR(c *Call) Reply {
	req := c.Req.(*kmsg.LeaderAndISRRequest)
	if !s.fromBroker(c) {
		resp := req.ResponseKind().(*kmsg.LeaderAndISRResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return now(resp)
	}
	return now(s.d.Replicas.HandleLeaderAndISR(req))
}

func (s *Server) handleStopReplica(c *Call) Reply {
	req := c.Req.(*kmsg.StopReplicaRequest)
	if !s.fromBroker(c) {
		resp := req.ResponseKind().(*kmsg.StopReplicaResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return now(resp)
	}
	return now(s.d.Replicas.HandleStopReplica(req))
}
