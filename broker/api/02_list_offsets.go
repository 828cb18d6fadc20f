package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
)

// ListOffsets (key 2).
// -1 (latest) answers the HW for consumers (the LSO with isolation_level 1,
// READ_COMMITTED, v2+), -2 (earliest) the log start offset, -3 (max
// timestamp, v7) the offset of the largest timestamp; any other timestamp
// is looked up in the time index; no answer lies at or beyond that bound.
// v0's max_num_offsets form returns at most the one offset Kafka would.
// Each topic needs Describe, else TOPIC_AUTHORIZATION_FAILED.
func init() { regKey(kmsg.NewPtrListOffsetsRequest(), 0, 7, (*Server).handleListOffsets) }

func (s *Server) handleListOffsets(c *Call) Reply {
	req := c.Req.(*kmsg.ListOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	// Replicas (and the -2 debug id) see up to the LEO; consumers up to the HW.
	fromReplica := req.ReplicaID >= 0 || req.ReplicaID == -2
	readCommitted := req.Version >= 2 && req.IsolationLevel == 1
	describable := s.authorizedNames(c, acl.OpDescribe, acl.Topic, namesOf(req.Topics, func(t *kmsg.ListOffsetsRequestTopic) string { return t.Topic }))
	for _, rt := range req.Topics {
		ot := kmsg.NewListOffsetsResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewListOffsetsResponseTopicPartition()
			op.Partition = rp.Partition
			op.Timestamp, op.Offset, op.LeaderEpoch = -1, -1, -1
			if !describable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
				ot.Partitions = append(ot.Partitions, op)
				continue
			}
			p, err := s.d.Replicas.LeaderPartition(partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition})
			if err == nil {
				epoch := rp.CurrentLeaderEpoch
				if req.Version < 4 {
					epoch = -1
				}
				var off, ts int64
				var le int32
				off, ts, le, err = p.ListOffset(epoch, rp.Timestamp, fromReplica, readCommitted)
				if err == nil {
					op.Offset, op.Timestamp, op.LeaderEpoch = off, ts, le
					if req.Version == 0 {
						// v0 answers a list of offsets, at most MaxNumOffsets.
						if off >= 0 && rp.MaxNumOffsets > 0 {
							op.OldStyleOffsets = []int64{off}
						}
					}
				}
			}
			if err != nil {
				op.ErrorCode = errCode(err)
			}
			if req.Version == 0 && rp.Timestamp == -3 {
				op.ErrorCode = kerr.UnsupportedVersion.Code
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return respond(resp)
}
