package replica

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
	"kafgo/broker/storage"
)

// TxnMarker is one partition's end-transaction marker, from the transaction
// coordinator's WriteTxnMarkers.
type TxnMarker struct {
	TP               partid.TopicPartition
	ProducerID       int64
	ProducerEpoch    int16
	CoordinatorEpoch int32
	Commit           bool
}

// AppendTxnMarkers writes each marker on this leader as Kafka's
// WriteTxnMarkers does: an acks=all append with the coordinator origin
// (refused with NOT_ENOUGH_REPLICAS when the ISR is below
// min.insync.replicas), fenced by producer epoch (INVALID_PRODUCER_EPOCH)
// and coordinator epoch (TRANSACTION_COORDINATOR_FENCED). A partition not
// hosted here is UNKNOWN_TOPIC_OR_PARTITION, one hosted but not led
// NOT_LEADER_OR_FOLLOWER. The caller waits for the ISR with WaitForAcks:
// only then is the transaction's outcome durable.
func (m *Manager) AppendTxnMarkers(markers []TxnMarker) []ProduceResult {
	out := make([]ProduceResult, len(markers))
	for i, mk := range markers {
		out[i] = ProduceResult{TP: mk.TP, LogStartOffset: -1}
		p, ok := m.Partition(mk.TP)
		if !ok {
			out[i].Err = kerr.UnknownTopicOrPartition
			continue
		}
		info, err := p.leaderAppend(-1, func(leaderEpoch int32) (storage.AppendInfo, error) {
			return p.log.AppendEndTxnMarker(mk.ProducerID, mk.ProducerEpoch, mk.CoordinatorEpoch, mk.Commit, leaderEpoch, p.cfg.Load().LogAppendTime)
		})
		out[i].Info, out[i].Err = info, err
		out[i].LogStartOffset = p.log.LogStartOffset()
	}
	return out
}
