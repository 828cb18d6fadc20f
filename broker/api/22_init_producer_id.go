package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// InitProducerId (key 22), v0-v4.

// InitProducerId serves idempotent producers: like Kafka, every request
// without a transactional id gets a fresh producer id at epoch 0 (also a
// v3+ request naming its old id, KIP-360). Transactional producers are
// refused: transactions are not implemented.
//
// Authorization (Kafka 2.8, KIP-679): a transactional producer needs Write
// on its transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an
// idempotent one IdempotentWrite on the cluster or Write on some topic
// (CLUSTER_AUTHORIZATION_FAILED).
func (s *Server) handleInitProducerID(c *Call) Reply {
	req := c.Req.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	if req.TransactionalID != nil && !s.authorize(c, acl.OpWrite, acl.TransactionalID, *req.TransactionalID) {
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return now(resp)
	}
	if req.TransactionalID == nil && !s.authorizeQuiet(c, acl.OpIdempotentWrite, acl.Cluster, acl.ClusterName) && !s.authorizeWriteAnyTopic(c) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return now(resp)
	}
	if req.TransactionalID != nil {
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return now(resp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	id, err := s.d.NextProducerID(ctx)
	if err != nil {
		s.log.Warn("cannot allocate a producer id", "err", err)
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return now(resp)
	}
	resp.ProducerID, resp.ProducerEpoch = id, 0
	return now(resp)
}
