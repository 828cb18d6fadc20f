package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/topicadmin"
	"kafgo/internal/topicname"
)

// CreateTopics (key 19).
// Validated here (names, partitions, replication factor, configs, explicit
// assignments) and written by the controller; the answer waits until the
// cluster view shows the topic or the timeout passes. validate_only checks
// without creating. Topic configs are returned from v5.
// Creating needs Create on the cluster, else on the topic
// (TOPIC_AUTHORIZATION_FAILED); the configs are returned only with
// DescribeConfigs on the topic (else topic_config_error_code is
// TOPIC_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrCreateTopicsRequest(), 0, 7, (*Server).handleCreateTopics) }

// Topic admin requests go to the controller, as in Kafka: it serialises
// them and its watches act on what they write.
func (s *Server) notController() bool { return !s.d.Controller.IsActive() }

func (s *Server) handleCreateTopics(c *Call) Reply {
	req := c.Req.(*kmsg.CreateTopicsRequest)
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	cfg := s.d.Config()
	var created []string
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	seen := map[string]int{}
	for _, rt := range req.Topics {
		seen[rt.Topic]++
	}
	names := namesOf(req.Topics, func(t *kmsg.CreateTopicsRequestTopic) string { return t.Topic })
	creatable := map[string]bool{}
	if s.authorizeQuiet(c, acl.OpCreate, acl.Cluster, acl.ClusterName) {
		for _, n := range names {
			creatable[n] = true
		}
	} else {
		creatable = s.authorizedNames(c, acl.OpCreate, acl.Topic, names)
	}
	configsVisible := s.authorizedNames(c, acl.OpDescribeConfigs, acl.Topic, names)
	for _, rt := range req.Topics {
		out := kmsg.NewCreateTopicsResponseTopic()
		out.Topic = rt.Topic
		out.NumPartitions, out.ReplicationFactor = -1, -1
		fail := func(err error) {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		switch {
		case s.notController():
			fail(kerr.NotController)
		case seen[rt.Topic] > 1:
			fail(refuse(kerr.InvalidRequest, "Create topics request from client contains multiple requests for the topic: %s", rt.Topic))
		case !creatable[rt.Topic]:
			fail(refuse(kerr.TopicAuthorizationFailed, "Authorization failed."))
		case topicname.IsInternal(rt.Topic):
			fail(refuse(kerr.InvalidRequest, "Creating topic %s is reserved for the broker.", rt.Topic))
		default:
			overrides := map[string]string{}
			for _, kv := range rt.Configs {
				if kv.Value != nil {
					overrides[kv.Name] = *kv.Value
				}
			}
			if err := config.ValidateTopicOverrides(overrides); err != nil {
				fail(refuse(kerr.InvalidConfig, "%v", err))
				break
			}
			spec := topicadmin.TopicSpec{Name: rt.Topic, Partitions: rt.NumPartitions, ReplicationFactor: rt.ReplicationFactor, Configs: overrides}
			if len(rt.ReplicaAssignment) > 0 {
				spec.Assignment = map[int32][]int32{}
				for _, a := range rt.ReplicaAssignment {
					spec.Assignment[a.Partition] = a.Replicas
				}
				spec.Partitions, spec.ReplicationFactor = 0, 0
				if rt.NumPartitions > 0 || rt.ReplicationFactor > 0 {
					fail(refuse(kerr.InvalidRequest, "Both numPartitions or replicationFactor and replicasAssignment were set. Both cannot be used at the same time."))
					break
				}
			} else {
				// v4+ may leave partitions and replication factor to the
				// broker defaults (-1).
				if spec.Partitions == -1 {
					spec.Partitions = cfg.NumPartitions
				}
				if spec.ReplicationFactor == -1 {
					spec.ReplicationFactor = cfg.DefaultReplicationFactor
				}
			}
			assignment, err := s.d.Admin.CreateTopic(ctx, spec, req.ValidateOnly)
			if err != nil {
				fail(err)
				break
			}
			out.NumPartitions = int32(len(assignment))
			out.ReplicationFactor = int16(len(assignment[0]))
			var described []config.Value
			if configsVisible[rt.Topic] {
				described = cfg.DescribeTopic(overrides)
			}
			for _, v := range described {
				rc := kmsg.NewCreateTopicsResponseTopicConfig()
				rc.Name, rc.ReadOnly, rc.Source, rc.IsSensitive = v.Name, v.ReadOnly, int8(v.Source), v.Sensitive
				if !v.Null && !v.Sensitive {
					rc.Value = kmsg.StringPtr(v.Value)
				}
				out.Configs = append(out.Configs, rc)
			}
			if !req.ValidateOnly {
				created = append(created, rt.Topic)
			}
		}
		if !configsVisible[rt.Topic] {
			out.ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
		}
		resp.Topics = append(resp.Topics, out)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		// Kafka answers once the new topics' leaders are in the metadata
		// (or the request's timeout passes: REQUEST_TIMED_OUT).
		if len(created) > 0 && timeout > 0 {
			ok := s.waitForMetadata(timeout, func() bool {
				view := s.d.Cache.View()
				for _, name := range created {
					t, exists := view.Topic(name)
					if !exists {
						return false
					}
					for _, p := range t.Partitions {
						if p.Leader < 0 {
							return false
						}
					}
				}
				return true
			})
			for i := range resp.Topics {
				t := &resp.Topics[i]
				if vt, exists := s.d.Cache.View().Topic(t.Topic); exists {
					t.TopicID = vt.ID
				} else if !ok && t.ErrorCode == 0 && contains(created, t.Topic) {
					t.ErrorCode = kerr.RequestTimedOut.Code
				}
			}
		}
		return Result{Resp: resp}
	}
}

// waitForMetadata waits until cond holds over the metadata cache, or the
// timeout passes, or the broker begins to shut down.
func (s *Server) waitForMetadata(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := s.d.Cache.Changed()
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return cond()
		case <-s.stopping:
			return cond()
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
