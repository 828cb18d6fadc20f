package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
)

// DescribeProducers (key 61).
// For each partition hosted here, as leader or follower (Kafka 3.0's
// activeProducerState), the producers its state holds: id, epoch, last
// sequence (-1 without a retained batch), last timestamp, the coordinator
// epoch of its last marker (-1 none) and the first offset of its open
// transaction (-1 none). An unknown topic is UNKNOWN_TOPIC_OR_PARTITION with
// its message; a partition of a known topic not hosted here
// NOT_LEADER_OR_FOLLOWER. A topic needs Read (TOPIC_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrDescribeProducersRequest(), 0, 0, (*Server).handleDescribeProducers) }

func (s *Server) handleDescribeProducers(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeProducersRequest)
	resp := req.ResponseKind().(*kmsg.DescribeProducersResponse)
	view := s.d.Cache.View()
	readable := s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(req.Topics, func(t *kmsg.DescribeProducersRequestTopic) string { return t.Topic }))
	for _, t := range req.Topics {
		rt := kmsg.NewDescribeProducersResponseTopic()
		rt.Topic = t.Topic
		_, known := view.Topic(t.Topic)
		for _, pi := range t.Partitions {
			rp := kmsg.NewDescribeProducersResponseTopicPartition()
			rp.Partition = pi
			p, hosted := s.d.Replicas.Partition(partid.TopicPartition{Topic: t.Topic, Partition: pi})
			switch {
			case !readable[t.Topic]:
				rp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				rp.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(errTopicAuthorization))
			case !known:
				rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				rp.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(kerr.UnknownTopicOrPartition))
			case !hosted:
				rp.ErrorCode = kerr.NotLeaderForPartition.Code
			default:
				rp.ActiveProducers = []kmsg.DescribeProducersResponseTopicPartitionActiveProducer{}
				for _, st := range p.Log().Producers().Producers() {
					ap := kmsg.NewDescribeProducersResponseTopicPartitionActiveProducer()
					ap.ProducerID = st.ProducerID
					ap.ProducerEpoch = int32(st.Epoch)
					ap.LastSequence = st.LastSequence()
					ap.LastTimestamp = st.LastTimestamp
					ap.CoordinatorEpoch = st.CoordinatorEpoch
					ap.CurrentTxnStartOffset = st.CurrentTxnFirstOffset
					rp.ActiveProducers = append(rp.ActiveProducers, ap)
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return respond(resp)
}
