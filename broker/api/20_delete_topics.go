package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
	"kafgo/internal/topicname"
	"kafgo/internal/uuid"
)

// DeleteTopics (key 20): marks topics for deletion under
// /admin/delete_topics; the controller stops the replicas and removes files
// and znodes. v6 names topics by id as well. A topic needs Delete
// (TOPIC_AUTHORIZATION_FAILED); one named by id without Describe is
// UNKNOWN_TOPIC_ID, its name not given.
func init() { regKey(kmsg.NewPtrDeleteTopicsRequest(), 0, 6, (*Server).handleDeleteTopics) }

func (s *Server) handleDeleteTopics(c *Call) Reply {
	req := c.Req.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	type target struct {
		name *string
		id   uuid.UUID
	}
	var targets []target
	if req.Version >= 6 {
		for _, t := range req.Topics {
			targets = append(targets, target{t.Topic, t.TopicID})
		}
	} else {
		for _, n := range req.TopicNames {
			targets = append(targets, target{kmsg.StringPtr(n), uuid.Zero})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	var deleting []string
	view := s.d.Cache.View()
	for _, t := range targets {
		out := kmsg.NewDeleteTopicsResponseTopic()
		out.Topic, out.TopicID = t.name, t.id
		fail := func(err error) {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		name := ""
		if t.name != nil {
			name = *t.name
		} else if vt, ok := view.TopicByID(t.id); ok {
			name = vt.Name
			out.Topic = kmsg.StringPtr(name)
		}
		switch {
		case s.notController():
			fail(kerr.NotController)
		case name == "":
			fail(kerr.UnknownTopicID)
		case !s.d.Config().DeleteTopicEnable:
			fail(refuse(kerr.TopicDeletionDisabled, "Topic deletion is disabled."))
		case t.name == nil && !s.authorize(c, acl.OpDescribe, acl.Topic, name):
			out.Topic = nil
			fail(kerr.UnknownTopicID)
		case !s.authorize(c, acl.OpDelete, acl.Topic, name):
			fail(errTopicAuthorization)
		case topicname.IsInternal(name):
			fail(refuse(kerr.TopicAuthorizationFailed, "Deleting internal topic %s is not allowed.", name))
		default:
			if vt, ok := view.Topic(name); ok {
				out.TopicID = vt.ID
			}
			if err := s.d.Admin.DeleteTopic(ctx, name); err != nil {
				fail(err)
				break
			}
			deleting = append(deleting, name)
		}
		resp.Topics = append(resp.Topics, out)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		if len(deleting) > 0 && timeout > 0 {
			gone := s.waitForMetadata(timeout, func() bool {
				view := s.d.Cache.View()
				for _, n := range deleting {
					if _, ok := view.Topic(n); ok {
						return false
					}
				}
				return true
			})
			if !gone {
				for i := range resp.Topics {
					t := &resp.Topics[i]
					if t.ErrorCode == 0 && t.Topic != nil && contains(deleting, *t.Topic) {
						if _, still := s.d.Cache.View().Topic(*t.Topic); still {
							t.ErrorCode = kerr.RequestTimedOut.Code
						}
					}
				}
			}
		}
		return Result{Resp: resp}
	}
}
