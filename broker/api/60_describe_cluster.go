package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeCluster (key 60), v0-v1: cluster id, controller and live brokers
// from the cluster view.

func (s *Server) handleDescribeCluster(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeClusterRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClusterResponse)
	view := s.d.Cache.View()
	listener := c.Listener(s.d.InterBrokerListener)
	resp.ClusterID = s.d.ClusterID
	resp.ControllerID = view.ControllerID
	resp.EndpointType = 1 // brokers
	resp.ClusterAuthorizedOperations = -2147483648
	for _, b := range view.SortedBrokers() {
		e, ok := b.Endpoint(listener)
		if !ok {
			continue
		}
		rb := kmsg.NewDescribeClusterResponseBroker()
		rb.NodeID, rb.Host, rb.Port, rb.Rack = b.ID, e.Host, e.Port, b.Rack
		resp.Brokers = append(resp.Brokers, rb)
	}
	return now(resp)
}
