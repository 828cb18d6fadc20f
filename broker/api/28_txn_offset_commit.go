package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// TxnOffsetCommit (key 28).
// Sent by a transactional producer to the group's coordinator: the offsets
// are written to __consumer_offsets as part of the transaction and become
// visible when its COMMIT marker lands there. v3 carries the consumer's
// generation, member id and instance id (KIP-447), checked as for a
// member's commit. Partitions of unknown topics are refused here, as
// Kafka's API layer does. Authorization: Write on the transactional id,
// Read on the group (every partition refused with the first failing one),
// Read on each topic (TOPIC_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrTxnOffsetCommitRequest(), 0, 3, (*Server).handleTxnOffsetCommit) }

func (s *Server) handleTxnOffsetCommit(c *Call) Reply {
	req := c.Req.(*kmsg.TxnOffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	tr := group.TxnCommitRequest{Group: req.Group, ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch, Generation: -1}
	if req.Version >= 3 {
		tr.Generation, tr.MemberID, tr.InstanceID = req.Generation, req.MemberID, req.InstanceID
	}
	var refusal int16
	switch {
	case !s.authorize(c, acl.OpWrite, acl.TransactionalID, req.TransactionalID):
		refusal = kerr.TransactionalIDAuthorizationFailed.Code
	case !s.authorize(c, acl.OpRead, acl.Group, req.Group):
		refusal = kerr.GroupAuthorizationFailed.Code
	}
	var readable map[string]bool
	if refusal == 0 {
		readable = s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(req.Topics, func(t *kmsg.TxnOffsetCommitRequestTopic) string { return t.Topic }))
	}
	var slots []commitSlot
	view := s.d.Cache.View()
	for ti, rt := range req.Topics {
		ot := kmsg.NewTxnOffsetCommitResponseTopic()
		ot.Topic = rt.Topic
		for pi, rp := range rt.Partitions {
			op := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			op.Partition = rp.Partition
			if refusal != 0 {
				op.ErrorCode = refusal
			} else if !readable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
			} else if _, ok := view.Partition(rt.Topic, rp.Partition); !ok {
				op.ErrorCode = kerr.UnknownTopicOrPartition.Code
			} else {
				o := commitOffset(rt.Topic, rp.Partition, rp.Offset, rp.Metadata)
				if req.Version >= 2 {
					o.LeaderEpoch = rp.LeaderEpoch
				}
				tr.Offsets = append(tr.Offsets, o)
				slots = append(slots, commitSlot{ti, pi})
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	if len(tr.Offsets) == 0 {
		return respond(resp)
	}
	return s.awaitCommit(s.d.Groups.TxnCommitOffsets(tr), slots, resp, func(sl commitSlot, ec int16) {
		resp.Topics[sl.ti].Partitions[sl.pi].ErrorCode = ec
	})
}
