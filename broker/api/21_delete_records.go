package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/replica"
)

// DeleteRecords (key 21), v0-v2.

// handleDeleteRecords advances the log start offsets on the leaders and
// answers once every live replica has followed or timeout_ms passed, as
// Kafka's DelayedDeleteRecords does.
func (s *Server) handleDeleteRecords(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteRecordsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
	var parts []replica.DeleteRecordsPartition
	for _, rt := range req.Topics {
		ot := kmsg.NewDeleteRecordsResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewDeleteRecordsResponseTopicPartition()
			op.Partition = rp.Partition
			op.LowWatermark = -1
			ot.Partitions = append(ot.Partitions, op)
			parts = append(parts, replica.DeleteRecordsPartition{TP: partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition}, Offset: rp.Offset})
		}
		resp.Topics = append(resp.Topics, ot)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
		defer cancel()
		results := s.d.Replicas.DeleteRecords(ctx, timeout, parts)
		i := 0
		for ti := range resp.Topics {
			for pi := range resp.Topics[ti].Partitions {
				op := &resp.Topics[ti].Partitions[pi]
				op.LowWatermark, op.ErrorCode = results[i].LowWatermark, errCode(results[i].Err)
				i++
			}
		}
		return Result{Resp: resp}
	}
}
