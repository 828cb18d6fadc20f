package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/txn"
)

// InitProducerId (key 22).
// Without a transactional id (idempotent producers) every request gets a
// fresh producer id at epoch 0, also a v3+ request naming its old id
// (KIP-360), as Kafka does. With one, the transaction coordinator answers:
// a producer id and a bumped epoch that fences the id's previous producer
// (see package txn). A producer id without an epoch, or the reverse, is
// INVALID_REQUEST. Before v4 (KIP-588) PRODUCER_FENCED is answered as
// INVALID_PRODUCER_EPOCH.
//
// Authorization (Kafka 2.8, KIP-679): a transactional producer needs Write
// on its transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an
// idempotent one IdempotentWrite on the cluster or Write on some topic
// (CLUSTER_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrInitProducerIDRequest(), 0, 4, (*Server).handleInitProducerID) }

func (s *Server) handleInitProducerID(c *Call) Reply {
	req := c.Req.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	if req.TransactionalID != nil && !s.authorize(c, acl.OpWrite, acl.TransactionalID, *req.TransactionalID) {
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return respond(resp)
	}
	if req.TransactionalID == nil && !s.authorizeQuiet(c, acl.OpIdempotentWrite, acl.Cluster, acl.ClusterName) && !s.authorizeWriteAnyTopic(c) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return respond(resp)
	}
	var expected *txn.ProducerIDEpoch
	if req.Version >= 3 {
		switch pid, epoch := req.ProducerID, req.ProducerEpoch; {
		case pid == -1 && epoch == -1:
		case pid == -1 || epoch == -1:
			resp.ErrorCode = kerr.InvalidRequest.Code
			return respond(resp)
		default:
			expected = &txn.ProducerIDEpoch{ProducerID: pid, Epoch: epoch}
		}
	}
	if req.TransactionalID == nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		id, err := s.d.NextProducerID(ctx)
		if err != nil {
			s.log.Warn("cannot allocate a producer id", "err", err)
			resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
			return respond(resp)
		}
		resp.ProducerID, resp.ProducerEpoch = id, 0
		return respond(resp)
	}
	// The coordinator may wait for the producer id allocator (ZooKeeper):
	// in the deferred reply, off this connection's reader.
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		r := waitGroupAnswer(s.d.Txns.InitProducerID(ctx, *req.TransactionalID, req.TransactionTimeoutMillis, expected),
			s.d.Txns.Done(), txn.InitResult{ProducerID: -1, Epoch: -1, Err: kerr.NotCoordinator})
		resp.ErrorCode = fencedCode(r.Err, req.Version, 4)
		if r.Err == nil {
			resp.ProducerID, resp.ProducerEpoch = r.ProducerID, r.Epoch
		}
		return Result{Resp: resp}
	}
}
