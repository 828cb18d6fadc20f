package api

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/coordlog"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/topicadmin"
)

// FindCoordinator (key 10).
// Key type 0 (GROUP): the leader of the group's __consumer_offsets
// partition; key type 1 (TRANSACTION, v1+): the leader of the
// transactional id's __transaction_state partition. Both are placed by
// the key's Java hashCode, and the first request creates the internal
// topic. v4 takes several keys per request. A group key needs Describe on
// the group (GROUP_AUTHORIZATION_FAILED), a transactional id Describe on it
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrFindCoordinatorRequest(), 0, 4, (*Server).handleFindCoordinator) }

// Coordinator key types (FindCoordinator v1+).
const (
	coordinatorGroup       = 0
	coordinatorTransaction = 1
)

// handleFindCoordinator answers with the leader of the key's partition. The
// first request of a cluster creates the topic and, like Kafka, answers
// COORDINATOR_NOT_AVAILABLE until a leader is up. The work runs in the
// deferred reply: creating the topic writes to the metadata store, which
// must not stall this connection's reader.
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
	var pl *coordlog.Placement
	var create func()
	switch keyType {
	case coordinatorGroup:
		pl, create = s.d.Groups.Placement(), s.createOffsetsTopic
	case coordinatorTransaction:
		pl, create = s.d.Txns.Placement(), s.createTransactionTopic
	default:
		return fail(kerr.InvalidRequest, "unknown coordinator type "+strconv.Itoa(int(keyType)))
	}
	topic := pl.Topic()
	view := s.d.Cache.View()
	if _, ok := view.Topic(topic); !ok {
		create()
		return fail(kerr.CoordinatorNotAvailable, "the coordinator is not available: "+topic+" is being created")
	}
	p, ok := view.Partition(topic, pl.PartitionFor(key))
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
// replicas, compacted, with offsets.topic.segment.bytes segments. The
// coordinator compresses its own batches with offsets.topic.compression.codec,
// so the topic keeps what it is given (compression.type=producer).
func (s *Server) createOffsetsTopic() {
	cfg := s.d.Config()
	s.createInternalTopic(s.d.Groups.Placement(), cfg.OffsetsTopicNumPartitions, cfg.OffsetsTopicReplicationFactor, 0, map[string]string{
		"cleanup.policy":   "compact",
		"segment.bytes":    strconv.Itoa(int(cfg.OffsetsTopicSegmentBytes)),
		"compression.type": "producer",
	})
}

// createTransactionTopic creates __transaction_state with Kafka's
// TransactionStateManager settings: transaction.state.log.num.partitions
// partitions, transaction.state.log.replication.factor replicas,
// min.insync.replicas transaction.state.log.min.isr, compacted,
// uncompressed, transaction.state.log.segment.bytes segments, no unclean
// leader election.
func (s *Server) createTransactionTopic() {
	cfg := s.d.Config()
	s.createInternalTopic(s.d.Txns.Placement(), cfg.TransactionStateLogNumPartitions, cfg.TransactionStateLogReplicationFactor,
		cfg.TransactionStateLogMinIsr, map[string]string{
			"cleanup.policy":                 "compact",
			"segment.bytes":                  strconv.Itoa(int(cfg.TransactionStateLogSegmentBytes)),
			"compression.type":               "uncompressed",
			"unclean.leader.election.enable": "false",
		})
}

// createInternalTopic creates a coordinator's topic unless another request
// is creating it. The replication factor is capped by the live brokers, so
// a small cluster (the single embedded broker) gets coordinators at all;
// a min.insync.replicas (minISR > 0) is capped by the replication factor
// for the same reason, or no acks=all write could ever succeed.
func (s *Server) createInternalTopic(pl *coordlog.Placement, partitions int32, rf int16, minISR int32, configs map[string]string) {
	done, ok := pl.BeginTopicCreation()
	if !ok {
		return // another request is creating it, or just did
	}
	exists := false
	defer func() { done(exists) }()
	topic := pl.Topic()
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	if brokers, err := s.d.Admin.LiveBrokers(ctx); err == nil && len(brokers) > 0 && int(rf) > len(brokers) {
		s.log.Warn("creating "+topic+" with fewer replicas than configured", "wanted", rf, "live_brokers", len(brokers))
		rf = int16(len(brokers))
	}
	if minISR > 0 {
		if minISR > int32(rf) {
			s.log.Warn("creating "+topic+" with min.insync.replicas capped by its replication factor", "wanted", minISR, "replication_factor", rf)
			minISR = int32(rf)
		}
		configs["min.insync.replicas"] = strconv.Itoa(int(minISR))
	}
	_, err := s.d.Admin.CreateTopic(ctx, topicadmin.TopicSpec{
		Name:              topic,
		Partitions:        partitions,
		ReplicationFactor: rf,
		Configs:           configs,
	}, false)
	switch {
	case err == nil:
		exists = true
		s.log.Info("created "+topic, "partitions", partitions, "replication_factor", rf)
	case errCode(err) == kerr.TopicAlreadyExists.Code:
		exists = true
	default:
		s.log.Warn("creating "+topic+" failed", "err", err)
	}
}
