package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
)

// DescribeTransactions (key 65, KIP-664, Kafka 3.0).
// Each transactional id's state at this broker's coordinator: its
// producer id and epoch, state name, timeout, start time and partitions;
// NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS when it lives elsewhere
// or is loading, TRANSACTIONAL_ID_NOT_FOUND when unknown. Each id needs
// Describe on it (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
func init() {
	regKey(kmsg.NewPtrDescribeTransactionsRequest(), 0, 0, (*Server).handleDescribeTransactions)
}

func (s *Server) handleDescribeTransactions(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeTransactionsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeTransactionsResponse)
	var allowed, refused []string
	for _, id := range req.TransactionalIDs {
		if s.authorize(c, acl.OpDescribe, acl.TransactionalID, id) {
			allowed = append(allowed, id)
		} else {
			refused = append(refused, id)
		}
	}
	for _, id := range refused {
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID, st.ErrorCode = id, kerr.TransactionalIDAuthorizationFailed.Code
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	for _, d := range s.d.Txns.Describe(allowed) {
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID, st.ErrorCode = d.ID, code(d.Err)
		if d.Err == nil {
			st.State, st.TimeoutMillis, st.StartTimestamp = d.State, d.TimeoutMs, d.StartMs
			st.ProducerID, st.ProducerEpoch = d.ProducerID, d.Epoch
			for _, tp := range partid.ByTopic(d.Partitions) {
				t := kmsg.NewDescribeTransactionsResponseTransactionStateTopic()
				t.Topic, t.Partitions = tp.Topic, tp.Partitions
				st.Topics = append(st.Topics, t)
			}
		}
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return respond(resp)
}
