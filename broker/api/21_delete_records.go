package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
)

// DeleteRecords (key 21). A topic needs Delete
// (TOPIC_AUTHORIZATION_FAILED for its partitions, left untouched).
func init() { regKey(kmsg.NewPtrDeleteRecordsRequest(), 0, 2, (*Server).handleDeleteRecords) }

// handleDeleteRecords advances the log start offsets on the leaders and
// answers once every live replica has followed or timeout_ms passed, as
// Kafka's DelayedDeleteRecords does.
func (s *Server) handleDeleteRecords(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteRecordsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
	var parts []replica.DeleteRecordsPartition
	type slot struct{ ti, pi int }
	var slots []slot
	deletable := s.authorizedNames(c, acl.OpDelete, acl.Topic, namesOf(req.Topics, func(t *kmsg.DeleteRecordsRequestTopic) string { return t.Topic }))
	for ti, rt := range req.Topics {
		ot := kmsg.NewDeleteRecordsResponseTopic()
		ot.Topic = rt.Topic
		for pi, rp := range rt.Partitions {
			op := kmsg.NewDeleteRecordsResponseTopicPartition()
			op.Partition = rp.Partition
			op.LowWatermark = -1
			if !deletable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
			} else {
				parts = append(parts, replica.DeleteRecordsPartition{TP: partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition}, Offset: rp.Offset})
				slots = append(slots, slot{ti, pi})
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Second)
		defer cancel()
		var results []replica.DeleteRecordsResult
		if len(parts) > 0 {
			results = s.d.Replicas.DeleteRecords(ctx, timeout, parts)
		}
		for i, sl := range slots {
			op := &resp.Topics[sl.ti].Partitions[sl.pi]
			op.LowWatermark, op.ErrorCode = results[i].LowWatermark, errCode(results[i].Err)
		}
		return Result{Resp: resp}
	}
}
