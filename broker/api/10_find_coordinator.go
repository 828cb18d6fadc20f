package api

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/controller"
	"kafgo/broker/group"
	"kafgo/broker/kafkaerr"
)

// FindCoordinator (key 10), v0-v4.
// The group coordinator is the leader of the __consumer_offsets partition
// chosen by the group id's Java hashCode; the topic is created on first use.
// v4 takes several keys per request. A group key needs Describe on the
// group (GROUP_AUTHORIZATION_FAILED), a transactional id Describe on it
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).

// Coordinator key types (FindCoordinator v1+).
const (
	coordinatorGroup       = 0
	coordinatorTransaction = 1
)

// handleFindCoordinator answers with the leader of the key's
// __consumer_offsets partition. The first request of a cluster creates the
// topic and, like Kafka, answers COORDINATOR_NOT_AVAILABLE until a leader
// is up. The work runs in the deferred reply: creating the topic writes to
// the metadata store, which must not stall this connection's reader.
func (s *Server) handleFindCoordinator(c *Call) Reply {
	req := c.Req.(*kmsg.FindCoordinatorRequest)
	listener := c.Listener(s.d.InterBrokerListener)
	return func() Result {
		resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
		if req.Version < 4 {
			r, refused := s.coordinatorKeyRefused(c, req.CoordinatorKey, req.CoordinatorType)
			if !refused {
				r = s.findCoordinator(req.CoordinatorKey, req.CoordinatorType, listener)
			}
			resp.ErrorCode, resp.ErrorMessage = r.ErrorCode, r.ErrorMessage
			resp.NodeID, resp.Host, resp.Port = r.NodeID, r.Host, r.Port
			return Result{Resp: resp}
		}
		for _, key := range req.CoordinatorKeys {
			r, refused := s.coordinatorKeyRefused(c, key, req.CoordinatorType)
			if !refused {
				r = s.findCoordinator(key, req.CoordinatorType, listener)
			}
			resp.Coordinators = append(resp.Coordinators, r)
		}
		return Result{Resp: resp}
	}
}

// coordinatorKeyRefused answers a key the principal may not describe.
func (s *Server) coordinatorKeyRefused(c *Call, key string, keyType int8) (kmsg.FindCoordinatorResponseCoordinator, bool) {
	out := kmsg.NewFindCoordinatorResponseCoordinator()
	out.Key, out.NodeID, out.Port = key, -1, -1
	var err error
	switch {
	case keyType == coordinatorGroup && !s.authorize(c, acl.OpDescribe, acl.Group, key):
		err = errGroupAuthorization
	case keyType == coordinatorTransaction && !s.authorize(c, acl.OpDescribe, acl.TransactionalID, key):
		err = errTxnIDAuthorization
	default:
		return out, false
	}
	out.ErrorCode, out.ErrorMessage = errCode(err), kmsg.StringPtr(kafkaerr.Message(err))
	return out, true
}

func (s *Server) findCoordinator(key string, keyType int8, listener string) kmsg.FindCoordinatorResponseCoordinator {
	out := kmsg.NewFindCoordinatorResponseCoordinator()
	out.Key, out.NodeID, out.Port = key, -1, -1
	fail := func(code *kerr.Error, msg string) kmsg.FindCoordinatorResponseCoordinator {
		out.ErrorCode, out.ErrorMessage = code.Code, kmsg.StringPtr(msg)
		return out
	}
	switch keyType {
	case coordinatorGroup:
	case coordinatorTransaction:
		return fail(kerr.CoordinatorNotAvailable, "transactions are not supported by this broker")
	default:
		return fail(kerr.InvalidRequest, "unknown coordinator type "+strconv.Itoa(int(keyType)))
	}
	view := s.d.Cache.View()
	if _, ok := view.Topic(group.OffsetsTopic); !ok {
		s.createOffsetsTopic()
		return fail(kerr.CoordinatorNotAvailable, "the coordinator is not available: "+group.OffsetsTopic+" is being created")
	}
	p, ok := view.Partition(group.OffsetsTopic, s.d.Groups.PartitionFor(key))
	if !ok || p.Leader < 0 {
		return fail(kerr.CoordinatorNotAvailable, "the coordinator is not available: its partition has no leader")
	}
	b, live := view.Broker(p.Leader)
	if !live {
		return fail(kerr.CoordinatorNotAvailable, "the coordinator is not available: its broker is down")
	}
	e, ok := b.Endpoint(listener)
	if !ok {
		return fail(kerr.CoordinatorNotAvailable, "the coordinator has no endpoint on listener "+listener)
	}
	out.NodeID, out.Host, out.Port = b.ID, e.Host, e.Port
	return out
}

// createOffsetsTopic creates __consumer_offsets as Kafka does:
// offsets.topic.num.partitions partitions, offsets.topic.replication.factor
// replicas (capped by the live brokers, so a small cluster gets groups at
// all), compacted, with offsets.topic.segment.bytes segments. The
// coordinator compresses its own batches with offsets.topic.compression.codec,
// so the topic keeps what it is given (compression.type=producer).
func (s *Server) createOffsetsTopic() {
	done, ok := s.d.Groups.BeginTopicCreation()
	if !ok {
		return // another request is creating it
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	cfg := s.d.Config()
	rf := cfg.OffsetsTopicReplicationFactor
	if brokers, err := s.d.Admin.LiveBrokers(ctx); err == nil && len(brokers) > 0 && int(rf) > len(brokers) {
		s.log.Warn("creating "+group.OffsetsTopic+" with fewer replicas than offsets.topic.replication.factor", "wanted", rf, "live_brokers", len(brokers))
		rf = int16(len(brokers))
	}
	_, err := s.d.Admin.CreateTopic(ctx, controller.TopicSpec{
		Name:              group.OffsetsTopic,
		Partitions:        cfg.OffsetsTopicNumPartitions,
		ReplicationFactor: rf,
		Configs: map[string]string{
			"cleanup.policy":   "compact",
			"segment.bytes":    strconv.Itoa(int(cfg.OffsetsTopicSegmentBytes)),
			"compression.type": "producer",
		},
	}, false)
	switch {
	case err == nil:
		s.log.Info("created "+group.OffsetsTopic, "partitions", cfg.OffsetsTopicNumPartitions, "replication_factor", rf)
	case errCode(err) != kerr.TopicAlreadyExists.Code:
		s.log.Warn("creating "+group.OffsetsTopic+" failed", "err", err)
	}
}
