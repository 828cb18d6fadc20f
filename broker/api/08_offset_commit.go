package api

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/group"
)

// OffsetCommit (key 8).
// Commits go to the group's coordinator, written to __consumer_offsets with
// acks=all and visible once replicated. Generation and member id are checked
// for group members; v0 and empty-generation commits are simple commits.
// The group needs Read (else GROUP_AUTHORIZATION_FAILED for every
// partition), each topic Read (TOPIC_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrOffsetCommitRequest(), 0, 8, (*Server).handleOffsetCommit) }

// handleOffsetCommit stores offsets in __consumer_offsets; the answer is
// deferred until they are replicated (offsets.commit.timeout.ms bounds it).
// Partitions of unknown topics are refused here, as Kafka's API layer does,
// before the coordinator sees the request.
func (s *Server) handleOffsetCommit(c *Call) Reply {
	req := c.Req.(*kmsg.OffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	cr := group.CommitRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID, RetentionMs: -1}
	if req.Version == 0 {
		// v0 predates group membership: every commit is a simple one.
		cr.Generation, cr.MemberID = -1, ""
	}
	if req.Version >= 2 && req.Version <= 4 {
		cr.RetentionMs = req.RetentionTimeMillis
	}
	if req.Version >= 7 {
		cr.InstanceID = req.InstanceID
	}
	groupAllowed := s.authorize(c, acl.OpRead, acl.Group, req.Group)
	var readable map[string]bool
	if groupAllowed {
		readable = s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(req.Topics, func(t *kmsg.OffsetCommitRequestTopic) string { return t.Topic }))
	}
	var slots []commitSlot
	view := s.d.Cache.View()
	for ti, rt := range req.Topics {
		ot := kmsg.NewOffsetCommitResponseTopic()
		ot.Topic = rt.Topic
		for pi, rp := range rt.Partitions {
			op := kmsg.NewOffsetCommitResponseTopicPartition()
			op.Partition = rp.Partition
			if !groupAllowed {
				op.ErrorCode = kerr.GroupAuthorizationFailed.Code
			} else if !readable[rt.Topic] {
				op.ErrorCode = kerr.TopicAuthorizationFailed.Code
			} else if _, ok := view.Partition(rt.Topic, rp.Partition); !ok {
				op.ErrorCode = kerr.UnknownTopicOrPartition.Code
			} else {
				o := commitOffset(rt.Topic, rp.Partition, rp.Offset, rp.Metadata)
				if req.Version >= 6 {
					o.LeaderEpoch = rp.LeaderEpoch
				}
				if req.Version == 1 {
					o.CommitTimestamp = rp.Timestamp
				}
				cr.Offsets = append(cr.Offsets, o)
				slots = append(slots, commitSlot{ti, pi})
			}
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	if len(cr.Offsets) == 0 {
		return respond(resp)
	}
	return s.awaitCommit(s.d.Groups.CommitOffsets(cr), slots, resp, func(sl commitSlot, ec int16) {
		resp.Topics[sl.ti].Partitions[sl.pi].ErrorCode = ec
	})
}

// commitSlot is where the coordinator's answer for one offset goes in the
// response: topic and partition indexes.
type commitSlot struct{ ti, pi int }

// commitOffset is one requested offset as the coordinator takes it, before
// the version-dependent fields (leader epoch, v1's timestamp).
func commitOffset(topic string, partition int32, offset int64, metadata *string) group.CommitOffset {
	return group.CommitOffset{
		TopicPartition:  group.TopicPartition{Topic: topic, Partition: partition},
		Offset:          offset,
		LeaderEpoch:     -1,
		Metadata:        metadata,
		CommitTimestamp: -1,
	}
}

// awaitCommit is the deferred reply of a commit: the coordinator's answer
// for each offset (NOT_COORDINATOR if it stopped) filed by set.
func (s *Server) awaitCommit(ch <-chan []*kerr.Error, slots []commitSlot, resp kmsg.Response, set func(commitSlot, int16)) Reply {
	return func() Result {
		errs := waitGroupAnswer(ch, s.d.Groups.Done(), nil)
		for i, sl := range slots {
			e := kerr.NotCoordinator
			if errs != nil {
				e = errs[i]
			}
			set(sl, code(e))
		}
		return Result{Resp: resp}
	}
}
