package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/group"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
)

// WriteTxnMarkers (key 27).
// The transaction coordinator ends a transaction on each partition leader:
// for every marker, a COMMIT or ABORT control batch (the producer's id and
// epoch in the header, the coordinator epoch in the record) is appended to
// each listed partition as an acks=all write with the coordinator origin,
// and the answer waits for the ISR (request.timeout.ms, as Kafka's
// appendRecords with acks -1). Per-partition errors, as Kafka's:
// UNKNOWN_TOPIC_OR_PARTITION when the partition is not hosted here,
// NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS(_AFTER_APPEND),
// REQUEST_TIMED_OUT, INVALID_PRODUCER_EPOCH (a marker older than the
// producer's epoch) and TRANSACTION_COORDINATOR_FENCED (older than the
// coordinator epoch of the producer's last marker). Only brokers may send
// it (with an authorizer: principals with ClusterAction on the cluster):
// anyone else gets CLUSTER_AUTHORIZATION_FAILED
// for every partition. Once a marker on a __consumer_offsets partition is
// replicated, Deps.OnTxnMarker tells the group coordinator the outcome.
func init() { regKey(kmsg.NewPtrWriteTxnMarkersRequest(), 0, 1, (*Server).handleWriteTxnMarkers) }

func (s *Server) handleWriteTxnMarkers(c *Call) Reply {
	req := c.Req.(*kmsg.WriteTxnMarkersRequest)
	resp := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	type slot struct{ mi, ti, pi int }
	var markers []replica.TxnMarker
	var slots []slot
	authorized := s.clusterAction(c)
	for mi, m := range req.Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		for ti, t := range m.Topics {
			rt := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			rt.Topic = t.Topic
			for pi, p := range t.Partitions {
				rp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				rp.Partition = p
				if !authorized {
					rp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
				} else {
					markers = append(markers, replica.TxnMarker{
						TP:         partid.TopicPartition{Topic: t.Topic, Partition: p},
						ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
						CoordinatorEpoch: m.CoordinatorEpoch, Commit: m.Committed,
					})
					slots = append(slots, slot{mi, ti, pi})
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			rm.Topics = append(rm.Topics, rt)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	if len(markers) == 0 {
		return respond(resp)
	}
	results := s.d.Replicas.AppendTxnMarkers(markers)
	timeout := s.d.RequestTimeout
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
		defer cancel()
		s.d.Replicas.WaitForAcks(ctx, timeout, results)
		for i, r := range results {
			sl := slots[i]
			if r.Err != nil {
				s.log.Debug("transaction marker refused", "partition", r.TP.String(), "producer_id", markers[i].ProducerID, "err", r.Err)
			}
			resp.Markers[sl.mi].Topics[sl.ti].Partitions[sl.pi].ErrorCode = errCode(r.Err)
			if mk := markers[i]; r.Err == nil && mk.TP.Topic == group.OffsetsTopic && s.d.OnTxnMarker != nil {
				s.d.OnTxnMarker(mk.TP, mk.ProducerID, mk.ProducerEpoch, mk.Commit)
			}
		}
		return Result{Resp: resp}
	}
}
