package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// OffsetFetch (key 9).
// Committed offsets from the coordinator's loaded cache; a null topic list
// (v2+) returns every partition the group committed; v8 batches groups.
// A group needs Describe (GROUP_AUTHORIZATION_FAILED); a named topic the
// principal may not describe is TOPIC_AUTHORIZATION_FAILED, and such topics
// are left out of an all-partitions answer.
func init() { regKey(kmsg.NewPtrOffsetFetchRequest(), 0, 8, (*Server).handleOffsetFetch) }

// handleOffsetFetch returns committed offsets: -1 with empty metadata for
// partitions without one. Up to v7 it asks for one group; v8 batches
// groups, each with its own error (they may live on different
// coordinators). A null topic list (v2+) means every committed partition.
// require_stable (v7+, KIP-447) answers UNSTABLE_OFFSET_COMMIT for
// partitions with a commit in flight or pending on a transaction; the
// consumer retries until the transaction ends.
func (s *Server) handleOffsetFetch(c *Call) Reply {
	req := c.Req.(*kmsg.OffsetFetchRequest)
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	if req.Version >= 8 {
		for _, rg := range req.Groups {
			var tps []group.TopicPartition
			if rg.Topics != nil {
				tps = []group.TopicPartition{}
				for _, t := range rg.Topics {
					for _, p := range t.Partitions {
						tps = append(tps, group.TopicPartition{Topic: t.Topic, Partition: p})
					}
				}
			}
			offsets, err := s.groupOffsets(c, rg.Group, tps, req.RequireStable)
			og := kmsg.NewOffsetFetchResponseGroup()
			og.Group, og.ErrorCode = rg.Group, code(err)
			if err == nil {
				for _, f := range offsets {
					op := kmsg.NewOffsetFetchResponseGroupTopicPartition()
					op.Partition, op.Offset, op.LeaderEpoch, op.Metadata, op.ErrorCode = f.Partition, f.Offset, f.LeaderEpoch, kmsg.StringPtr(f.Metadata), code(f.Err)
					if n := len(og.Topics); n == 0 || og.Topics[n-1].Topic != f.Topic {
						ot := kmsg.NewOffsetFetchResponseGroupTopic()
						ot.Topic = f.Topic
						og.Topics = append(og.Topics, ot)
					}
					last := &og.Topics[len(og.Topics)-1]
					last.Partitions = append(last.Partitions, op)
				}
			}
			resp.Groups = append(resp.Groups, og)
		}
		return respond(resp)
	}

	var tps []group.TopicPartition
	if req.Topics != nil || req.Version < 2 {
		tps = []group.TopicPartition{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, group.TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
	}
	offsets, err := s.groupOffsets(c, req.Group, tps, req.Version >= 7 && req.RequireStable)
	if err != nil {
		if req.Version >= 2 {
			resp.ErrorCode = code(err)
			return respond(resp)
		}
		// v0-v1 have no top-level error: every partition carries it.
		offsets = offsets[:0]
		for _, tp := range tps {
			offsets = append(offsets, group.FetchedOffset{TopicPartition: tp, Offset: -1, LeaderEpoch: -1, Err: err})
		}
	}
	for _, f := range offsets {
		op := kmsg.NewOffsetFetchResponseTopicPartition()
		op.Partition, op.Offset, op.LeaderEpoch, op.Metadata, op.ErrorCode = f.Partition, f.Offset, f.LeaderEpoch, kmsg.StringPtr(f.Metadata), code(f.Err)
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != f.Topic {
			ot := kmsg.NewOffsetFetchResponseTopic()
			ot.Topic = f.Topic
			resp.Topics = append(resp.Topics, ot)
		}
		last := &resp.Topics[len(resp.Topics)-1]
		last.Partitions = append(last.Partitions, op)
	}
	return respond(resp)
}

// groupOffsets is FetchOffsets for what the call may see: the group needs
// Describe; a named partition of a topic the principal may not describe
// is answered TOPIC_AUTHORIZATION_FAILED without being looked up, and such
// topics are left out of an all-partitions answer (tps nil).
func (s *Server) groupOffsets(c *Call, groupID string, tps []group.TopicPartition, requireStable bool) ([]group.FetchedOffset, *kerr.Error) {
	if !s.authorize(c, acl.OpDescribe, acl.Group, groupID) {
		return nil, kerr.GroupAuthorizationFailed
	}
	if !s.authorizes(c) {
		return s.d.Groups.FetchOffsets(groupID, tps, requireStable)
	}
	if tps == nil {
		offsets, err := s.d.Groups.FetchOffsets(groupID, nil, requireStable)
		describable := s.authorizedNames(c, acl.OpDescribe, acl.Topic, namesOf(offsets, func(f *group.FetchedOffset) string { return f.Topic }))
		out := offsets[:0]
		for _, f := range offsets {
			if describable[f.Topic] {
				out = append(out, f)
			}
		}
		return out, err
	}
	describable := s.authorizedNames(c, acl.OpDescribe, acl.Topic, namesOf(tps, func(tp *group.TopicPartition) string { return tp.Topic }))
	allowed := []group.TopicPartition{}
	var refused []group.FetchedOffset
	for _, tp := range tps {
		if describable[tp.Topic] {
			allowed = append(allowed, tp)
		} else {
			refused = append(refused, group.FetchedOffset{TopicPartition: tp, Offset: -1, LeaderEpoch: -1, Err: kerr.TopicAuthorizationFailed})
		}
	}
	offsets, err := s.d.Groups.FetchOffsets(groupID, allowed, requireStable)
	if err != nil {
		return nil, err
	}
	return append(offsets, refused...), nil
}
