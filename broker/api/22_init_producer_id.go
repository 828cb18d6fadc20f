package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// InitProducerId (key 22), v0-v4.

// InitProducerId serves idempotent producers: like Kafka, every request
// without a transactional id gets a fresh producer id at epoch 0 (also a
// v3+ request naming its old id, KIP-360). Transactional producers are
// refused: transactions are not implemented.
func (s *Server) handleInitProducerID(c *Call) Reply {
	req := c.Req.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
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
