package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
)

// OffsetForLeaderEpoch (key 23): the end offset of a leader epoch from
// the leader-epoch cache (KIP-101/279). Followers send replica_id (v3+); a
// stale or future epoch gets FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH.
// ClusterAction on the cluster (followers) or Describe on the topic
// (consumers checking for truncation, KIP-320) is needed, else
// TOPIC_AUTHORIZATION_FAILED.
func init() {
	regKey(kmsg.NewPtrOffsetForLeaderEpochRequest(), 0, 4, (*Server).handleOffsetForLeaderEpoch)
}

func (s *Server) handleOffsetForLeaderEpoch(c *Call) Reply {
	req := c.Req.(*kmsg.OffsetForLeaderEpochRequest)
	resp := req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	var describable map[string]bool
	cluster := s.authorizeQuiet(c, acl.OpClusterAction, acl.Cluster, acl.ClusterName)
	if !cluster {
		describable = s.authorizedNames(c, acl.OpDescribe, acl.Topic, namesOf(req.Topics, func(t *kmsg.OffsetForLeaderEpochRequestTopic) string { return t.Topic }))
	}
	for _, rt := range req.Topics {
		ot := kmsg.NewOffsetForLeaderEpochResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			op.Partition = rp.Partition
			op.LeaderEpoch, op.EndOffset = -1, -1
			if !cluster && !describable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
				ot.Partitions = append(ot.Partitions, op)
				continue
			}
			p, err := s.d.Replicas.LeaderPartition(partid.TopicPartition{Topic: rt.Topic, Partition: rp.Partition})
			if err == nil {
				current := rp.CurrentLeaderEpoch
				if req.Version < 2 {
					current = -1
				}
				op.LeaderEpoch, op.EndOffset, err = p.OffsetForLeaderEpoch(current, rp.LeaderEpoch)
			}
			op.ErrorCode = errCode(err)
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return respond(resp)
}
