package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// DescribeCluster (key 60): cluster id, controller and live brokers
// from the cluster view, as Metadata gives them to anyone (Kafka 2.8
// authorizes nothing else here). Asked for, the cluster's authorized
// operations: 0 without Describe on the cluster.
func init() { regKey(kmsg.NewPtrDescribeClusterRequest(), 0, 1, (*Server).handleDescribeCluster) }

func (s *Server) handleDescribeCluster(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeClusterRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClusterResponse)
	view := s.d.Cache.View()
	listener := c.Listener(s.d.InterBrokerListener)
	resp.ClusterID = s.d.ClusterID
	resp.ControllerID = view.ControllerID
	resp.EndpointType = 1 // brokers
	resp.ClusterAuthorizedOperations = -2147483648
	if req.IncludeClusterAuthorizedOperations {
		resp.ClusterAuthorizedOperations = 0
		if s.authorizeCluster(c, acl.OpDescribe) {
			resp.ClusterAuthorizedOperations = s.authorizedOperations(c, acl.Cluster, acl.ClusterName)
		}
	}
	for _, b := range view.SortedBrokers() {
		e, ok := b.Endpoint(listener)
		if !ok {
			continue
		}
		rb := kmsg.NewDescribeClusterResponseBroker()
		rb.NodeID, rb.Host, rb.Port, rb.Rack = b.ID, e.Host, e.Port, b.Rack
		resp.Brokers = append(resp.Brokers, rb)
	}
	return respond(resp)
}
