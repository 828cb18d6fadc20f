package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// OffsetDelete (key 47). Needs Delete on the group
// (GROUP_AUTHORIZATION_FAILED for the request) and Read on each topic
// (TOPIC_AUTHORIZATION_FAILED for its partitions).
func init() { regKey(kmsg.NewPtrOffsetDeleteRequest(), 0, 0, (*Server).handleOffsetDelete) }

// handleOffsetDelete deletes committed offsets of partitions a group no
// longer consumes. Unknown partitions are refused here; a group-level
// error leaves the partition list empty, as in Kafka.
func (s *Server) handleOffsetDelete(c *Call) Reply {
	req := c.Req.(*kmsg.OffsetDeleteRequest)
	resp := req.ResponseKind().(*kmsg.OffsetDeleteResponse)
	if !s.authorize(c, acl.OpDelete, acl.Group, req.Group) {
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		return respond(resp)
	}
	readable := s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(req.Topics, func(t *kmsg.OffsetDeleteRequestTopic) string { return t.Topic }))
	type slot struct{ ti, pi int }
	var tps []group.TopicPartition
	var slots []slot
	view := s.d.Cache.View()
	for ti, rt := range req.Topics {
		ot := kmsg.NewOffsetDeleteResponseTopic()
		ot.Topic = rt.Topic
		for pi, rp := range rt.Partitions {
			op := kmsg.NewOffsetDeleteResponseTopicPartition()
			op.Partition = rp.Partition
			if !readable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
			} else if _, ok := view.Partition(rt.Topic, rp.Partition); !ok {
				op.ErrorCode = kerr.UnknownTopicOrPartition.Code
			} else {
				tps = append(tps, group.TopicPartition{Topic: rt.Topic, Partition: rp.Partition})
				slots = append(slots, slot{ti, pi})
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	ch, gerr := s.d.Groups.DeleteOffsets(req.Group, tps)
	if gerr != nil {
		resp.ErrorCode = gerr.Code
		resp.Topics = nil
		return respond(resp)
	}
	return func() Result {
		errs := waitGroupAnswer(ch, s.d.Groups.Done(), nil)
		for i, sl := range slots {
			e := kerr.NotCoordinator
			if errs != nil {
				e = errs[i]
			}
			resp.Topics[sl.ti].Partitions[sl.pi].ErrorCode = code(e)
		}
		return Result{Resp: resp}
	}
}
