package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/internal/uuid"
)

// UpdateMetadata (key 6): the controller's full or incremental
// cluster view (live brokers, partition states) applied to the cluster view
// that Metadata and the replica fetchers read. Brokers only (with an
// authorizer: principals with ClusterAction on the cluster).
func init() { regKey(kmsg.NewPtrUpdateMetadataRequest(), 7, 7, (*Server).handleUpdateMetadata) }

func (s *Server) handleUpdateMetadata(c *Call) Reply {
	req := c.Req.(*kmsg.UpdateMetadataRequest)
	resp := req.ResponseKind().(*kmsg.UpdateMetadataResponse)
	if !s.clusterAction(c) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	if view := s.d.Cache.View(); req.ControllerEpoch < view.ControllerEpoch {
		resp.ErrorCode = kerr.StaleControllerEpoch.Code
		return respond(resp)
	}
	u := clusterview.Update{
		ControllerID:    req.ControllerID,
		ControllerEpoch: req.ControllerEpoch,
		TopicIDs:        map[string]uuid.UUID{},
	}
	for _, b := range req.LiveBrokers {
		mb := clusterview.Broker{ID: b.ID, Rack: b.Rack}
		for _, e := range b.Endpoints {
			mb.Endpoints = append(mb.Endpoints, clusterview.Endpoint{Listener: e.ListenerName, Host: e.Host, Port: e.Port})
		}
		u.Brokers = append(u.Brokers, mb)
	}
	for _, ts := range req.TopicStates {
		if ts.TopicID != (uuid.Zero) {
			u.TopicIDs[ts.Topic] = ts.TopicID
		}
		for _, ps := range ts.PartitionStates {
			u.Partitions = append(u.Partitions, clusterview.Partition{
				Topic:           ts.Topic,
				Partition:       ps.Partition,
				ControllerEpoch: ps.ControllerEpoch,
				Leader:          ps.Leader,
				LeaderEpoch:     ps.LeaderEpoch,
				ISR:             ps.ISR,
				PartitionEpoch:  ps.ZKVersion,
				Replicas:        ps.Replicas,
				OfflineReplicas: ps.OfflineReplicas,
			})
		}
	}
	s.d.Cache.Apply(u)
	return respond(resp)
}
