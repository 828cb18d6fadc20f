package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// EndTxn (key 26).
// The coordinator logs PrepareCommit or PrepareAbort and answers once
// that is replicated; the markers follow in the background
// (PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2). Authorization:
// Write on the transactional id.
func init() { regKey(kmsg.NewPtrEndTxnRequest(), 0, 3, (*Server).handleEndTxn) }

func (s *Server) handleEndTxn(c *Call) Reply {
	req := c.Req.(*kmsg.EndTxnRequest)
	resp := req.ResponseKind().(*kmsg.EndTxnResponse)
	if !s.authorize(c, acl.OpWrite, acl.TransactionalID, req.TransactionalID) {
		resp.ErrorCode = kerr.TransactionalIDAuthorizationFailed.Code
		return respond(resp)
	}
	ch := s.d.Txns.EndTxn(req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit)
	return func() Result {
		resp.ErrorCode = fencedCode(waitGroupAnswer(ch, s.d.Txns.Done(), kerr.NotCoordinator), req.Version, 2)
		return Result{Resp: resp}
	}
}
