package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
	"kafgo/broker/partid"
)

// AddOffsetsToTxn (key 25).
// The group's __consumer_offsets partition joins the producer's
// transaction, so the coordinator writes a marker there too and the
// offsets the producer commits with TxnOffsetCommit become visible with
// the transaction (PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2).
// Authorization: Write on the transactional id, Read on the group.
func init() { regKey(kmsg.NewPtrAddOffsetsToTxnRequest(), 0, 3, (*Server).handleAddOffsetsToTxn) }

func (s *Server) handleAddOffsetsToTxn(c *Call) Reply {
	req := c.Req.(*kmsg.AddOffsetsToTxnRequest)
	resp := req.ResponseKind().(*kmsg.AddOffsetsToTxnResponse)
	if !s.authorize(c, acl.OpWrite, acl.TransactionalID, req.TransactionalID) {
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return respond(resp)
	}
	if !s.authorize(c, acl.OpRead, acl.Group, req.Group) {
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		return respond(resp)
	}
	tp := partid.TopicPartition{Topic: group.OffsetsTopic, Partition: s.d.Groups.PartitionFor(req.Group)}
	ch := s.d.Txns.AddPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, []partid.TopicPartition{tp})
	return func() Result {
		resp.ErrorCode = fencedCode(waitGroupAnswer(ch, s.d.Txns.Done(), kerr.NotCoordinator), req.Version, 2)
		return Result{Resp: resp}
	}
}
