package api

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/storage"
)

func (s *Server) handleDeleteRecords(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteRecordsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
	for _, rt := range req.Topics {
		ot := kmsg.NewDeleteRecordsResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewDeleteRecordsResponseTopicPartition()
			op.Partition = rp.Partition
			op.LowWatermark = -1
			p, err := s.d.Replicas.LeaderPartition(storage.TopicPartition{Topic: rt.Topic, Partition: rp.Partition})
			if err == nil {
				op.LowWatermark, err = p.DeleteRecordsBefore(rp.Offset)
			}
			op.ErrorCode = errCode(err)
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return now(resp)
}
