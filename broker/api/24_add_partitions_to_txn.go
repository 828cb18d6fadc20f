package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
)

// AddPartitionsToTxn (key 24).
// The partitions join the producer's transaction at its coordinator. If
// any partition does not exist, nothing is added: those get
// UNKNOWN_TOPIC_OR_PARTITION and the rest OPERATION_NOT_ATTEMPTED, as in
// Kafka. Otherwise every partition gets the coordinator's answer
// (PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2). Authorization:
// Write on the transactional id (every partition
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED), Write on each topic
// (TOPIC_AUTHORIZATION_FAILED, the rest OPERATION_NOT_ATTEMPTED).
func init() { regKey(kmsg.NewPtrAddPartitionsToTxnRequest(), 0, 3, (*Server).handleAddPartitionsToTxn) }

func (s *Server) handleAddPartitionsToTxn(c *Call) Reply {
	req := c.Req.(*kmsg.AddPartitionsToTxnRequest)
	resp := req.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	view := s.d.Cache.View()
	idAllowed := s.authorize(c, acl.OpWrite, acl.TransactionalID, req.TransactionalID)
	var writable map[string]bool
	if idAllowed {
		writable = s.authorizedNames(c, acl.OpWrite, acl.Topic, namesOf(req.Topics, func(t *kmsg.AddPartitionsToTxnRequestTopic) string { return t.Topic }))
	}
	var tps []partid.TopicPartition
	missing := false
	for _, rt := range req.Topics {
		ot := kmsg.NewAddPartitionsToTxnResponseTopic()
		ot.Topic = rt.Topic
		for _, p := range rt.Partitions {
			op := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
			op.Partition = p
			if !idAllowed {
				op.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
				missing = true
			} else if !writable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
				missing = true
			} else if _, ok := view.Partition(rt.Topic, p); !ok {
				op.ErrorCode = kerr.UnknownTopicOrPartition.Code
				missing = true
			}
			tps = append(tps, partid.TopicPartition{Topic: rt.Topic, Partition: p})
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	setAll := func(ec int16, onlyUnset bool) {
		for ti := range resp.Topics {
			for pi := range resp.Topics[ti].Partitions {
				if p := &resp.Topics[ti].Partitions[pi]; !onlyUnset || p.ErrorCode == 0 {
					p.ErrorCode = ec
				}
			}
		}
	}
	if missing {
		setAll(kerr.OperationNotAttempted.Code, true)
		return respond(resp)
	}
	ch := s.d.Txns.AddPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, tps)
	return func() Result {
		err := waitGroupAnswer(ch, s.d.Txns.Done(), kerr.NotCoordinator)
		setAll(fencedCode(err, req.Version, 2), false)
		return Result{Resp: resp}
	}
}
