package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
)

// ListTransactions (key 66, KIP-664, Kafka 3.0).
// The transactional ids this broker coordinates, filtered by state names
// and producer ids (empty filters match all). State names Kafka does not
// know come back in UnknownStateFilters and match nothing; while a
// __transaction_state partition loads the answer is
// COORDINATOR_LOAD_IN_PROGRESS. Clients ask every broker. Only ids the
// caller may Describe are listed.
func init() { regKey(kmsg.NewPtrListTransactionsRequest(), 0, 0, (*Server).handleListTransactions) }

func (s *Server) handleListTransactions(c *Call) Reply {
	req := c.Req.(*kmsg.ListTransactionsRequest)
	resp := req.ResponseKind().(*kmsg.ListTransactionsResponse)
	list, unknown, err := s.d.Txns.List(req.StateFilters, req.ProducerIDFilters)
	resp.ErrorCode = code(err)
	resp.UnknownStateFilters = unknown
	for _, l := range list {
		if !s.authorizeQuiet(c, acl.OpDescribe, acl.TransactionalID, l.ID) {
			continue
		}
		st := kmsg.NewListTransactionsResponseTransactionState()
		st.TransactionalID, st.ProducerID, st.TransactionState = l.ID, l.ProducerID, l.State
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return respond(resp)
}
