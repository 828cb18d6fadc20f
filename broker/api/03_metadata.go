package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/clusterview"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/topicadmin"
	"kafgo/internal/topicname"
)

// Metadata (key 3).
// Served from the broker's cluster view (the controller's last
// UpdateMetadata). Unknown topics are auto-created when the request allows
// it and auto.create.topics.enable is on, answering LEADER_NOT_AVAILABLE
// meanwhile. Topic ids are returned from v10.
// Authorization (Kafka 2.8): a topic needs Describe. An all-topics request
// silently leaves out the topics the principal may not describe; a named
// one is TOPIC_AUTHORIZATION_FAILED whether or not it exists, so no
// unauthorized name or existence leaks (a topic asked for by id answers
// without its name). Auto-creation also needs Create on the cluster or
// the topic. v8+ fills the authorized-operations fields when asked.
func init() { regKey(kmsg.NewPtrMetadataRequest(), 0, 12, (*Server).handleMetadata) }

func (s *Server) handleMetadata(c *Call) Reply {
	req := c.Req.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	view := s.d.Cache.View()
	listener := c.Listener(s.d.InterBrokerListener)

	for _, b := range view.SortedBrokers() {
		e, ok := b.Endpoint(listener)
		if !ok {
			continue // Kafka lists only brokers reachable on this listener
		}
		rb := kmsg.NewMetadataResponseBroker()
		rb.NodeID, rb.Host, rb.Port, rb.Rack = b.ID, e.Host, e.Port, b.Rack
		resp.Brokers = append(resp.Brokers, rb)
	}
	clusterID := s.d.ClusterID
	resp.ClusterID = &clusterID
	resp.ControllerID = view.ControllerID

	// A null topic list (v1+), or an empty one at v0, means every topic.
	all := req.Topics == nil || (req.Version == 0 && len(req.Topics) == 0)
	if all {
		names := view.SortedTopicNames()
		resp.Topics = make([]kmsg.MetadataResponseTopic, 0, len(names))
		for _, name := range names {
			if s.authorizeQuiet(c, acl.OpDescribe, acl.Topic, name) {
				resp.Topics = append(resp.Topics, s.topicMetadata(view, name, listener))
			}
		}
		s.metadataAuthorizedOperations(c, req, resp)
		return respond(resp)
	}
	// v0-v3 always allow auto-creation; v4+ ask for it.
	allowAuto := s.d.Config().AutoCreateTopicsEnable && (req.Version < 4 || req.AllowAutoTopicCreation)
	for _, rt := range req.Topics {
		var name string
		if rt.Topic != nil {
			name = *rt.Topic
		} else if t, ok := view.TopicByID(rt.TopicID); ok {
			name = t.Name
			if !s.authorize(c, acl.OpDescribe, acl.Topic, name) {
				mt := kmsg.NewMetadataResponseTopic()
				mt.TopicID = rt.TopicID
				mt.ErrorCode = kerr.TopicAuthorizationFailed.Code
				resp.Topics = append(resp.Topics, mt)
				continue
			}
		} else {
			mt := kmsg.NewMetadataResponseTopic()
			mt.TopicID = rt.TopicID
			mt.ErrorCode = kerr.UnknownTopicID.Code
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		if rt.Topic != nil && !s.authorize(c, acl.OpDescribe, acl.Topic, name) {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic = kmsg.StringPtr(name)
			mt.ErrorCode = kerr.TopicAuthorizationFailed.Code
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		if _, ok := view.Topic(name); ok {
			resp.Topics = append(resp.Topics, s.topicMetadata(view, name, listener))
			continue
		}
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic = kmsg.StringPtr(name)
		switch {
		case topicname.Validate(name) != nil:
			mt.ErrorCode = kerr.InvalidTopicException.Code
		case allowAuto && !topicname.IsInternal(name) && !s.mayCreateTopic(c, name):
			mt.ErrorCode = kerr.TopicAuthorizationFailed.Code
		case allowAuto && !topicname.IsInternal(name):
			mt.ErrorCode = s.autoCreate(name)
		default:
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
		}
		resp.Topics = append(resp.Topics, mt)
	}
	s.metadataAuthorizedOperations(c, req, resp)
	return respond(resp)
}

// metadataAuthorizedOperations fills the v8+ authorized-operations fields
// the request asks for: the cluster's (v8-v10; 0 without Describe on the
// cluster) and each answered topic's (not those refused).
func (s *Server) metadataAuthorizedOperations(c *Call, req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse) {
	if req.Version < 8 {
		return
	}
	if req.IncludeClusterAuthorizedOperations {
		resp.AuthorizedOperations = 0
		if s.authorizeCluster(c, acl.OpDescribe) {
			resp.AuthorizedOperations = s.authorizedOperations(c, acl.Cluster, acl.ClusterName)
		}
	}
	if req.IncludeTopicAuthorizedOperations {
		for i := range resp.Topics {
			t := &resp.Topics[i]
			if t.Topic != nil && t.ErrorCode != kerr.TopicAuthorizationFailed.Code {
				t.AuthorizedOperations = s.authorizedOperations(c, acl.Topic, *t.Topic)
			}
		}
	}
}

// autoCreate asks for the topic and answers LEADER_NOT_AVAILABLE, Kafka's
// "created, retry shortly"; a lost race with another creator is the same.
func (s *Server) autoCreate(name string) int16 {
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	if err := s.autoCreateTopic(ctx, name); err != nil && errCode(err) != kerr.TopicAlreadyExists.Code {
		s.log.Warn("auto-creating topic failed", "topic", name, "err", err)
		// A failure Kafka names is passed on; an unexpected one leaves the
		// topic unknown, which clients retry.
		if ke := kafkaerr.Code(err); ke != kerr.UnknownServerError {
			return ke.Code
		}
		return kerr.UnknownTopicOrPartition.Code
	}
	return kerr.LeaderNotAvailable.Code
}

func (s *Server) topicMetadata(view *clusterview.View, name, listener string) kmsg.MetadataResponseTopic {
	t, _ := view.Topic(name)
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = kmsg.StringPtr(name)
	mt.TopicID = t.ID
	mt.IsInternal = topicname.IsInternal(name)
	parts := t.SortedPartitions()
	mt.Partitions = make([]kmsg.MetadataResponseTopicPartition, 0, len(parts))
	for _, p := range parts {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = p.Partition
		mp.Leader = p.Leader
		mp.LeaderEpoch = p.LeaderEpoch
		// Shared with the view, which never changes once published: the
		// response is only encoded. nil encodes as an empty array.
		mp.Replicas, mp.ISR, mp.OfflineReplicas = p.Replicas, p.ISR, p.OfflineReplicas
		leader, live := view.Broker(p.Leader)
		switch {
		case p.Leader < 0 || !live:
			mp.ErrorCode = kerr.LeaderNotAvailable.Code
			mp.Leader = -1
		default:
			if _, ok := leader.Endpoint(listener); !ok {
				mp.ErrorCode = kerr.ListenerNotFound.Code
			}
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// autoCreateTopic creates a topic with the broker's defaults.
func (s *Server) autoCreateTopic(ctx context.Context, name string) error {
	cfg := s.d.Config()
	_, err := s.d.Admin.CreateTopic(ctx, topicadmin.TopicSpec{
		Name:              name,
		Partitions:        cfg.NumPartitions,
		ReplicationFactor: cfg.DefaultReplicationFactor,
		Configs:           map[string]string{},
	}, false)
	return err
}
