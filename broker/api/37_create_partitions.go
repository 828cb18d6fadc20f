package api

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/kafkaerr"
	"kafgo/internal/topicname"
)

// CreatePartitions (key 37): adds partitions with Kafka's placement
// or explicit assignments, written by the controller. A topic needs Alter
// (TOPIC_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrCreatePartitionsRequest(), 0, 3, (*Server).handleCreatePartitions) }

func (s *Server) handleCreatePartitions(c *Call) Reply {
	req := c.Req.(*kmsg.CreatePartitionsRequest)
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	want := map[string]int32{}
	for _, rt := range req.Topics {
		out := kmsg.NewCreatePartitionsResponseTopic()
		out.Topic = rt.Topic
		var err error
		switch {
		case s.notController():
			err = kerr.NotController
		case !s.authorize(c, acl.OpAlter, acl.Topic, rt.Topic):
			err = refuse(kerr.TopicAuthorizationFailed, "The topic authorization is failed.")
		case topicname.IsInternal(rt.Topic):
			err = refuse(kerr.InvalidRequest, "Cannot add partitions to internal topic %s.", rt.Topic)
		default:
			var assignment [][]int32
			if rt.Assignment != nil {
				for _, a := range rt.Assignment {
					assignment = append(assignment, a.Replicas)
				}
			}
			err = s.d.Admin.AddPartitions(ctx, rt.Topic, rt.Count, assignment, req.ValidateOnly)
			if err == nil && !req.ValidateOnly {
				want[rt.Topic] = rt.Count
			}
		}
		if err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Topics = append(resp.Topics, out)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	return func() Result {
		if len(want) > 0 && timeout > 0 {
			s.waitForMetadata(timeout, func() bool {
				view := s.d.Cache.View()
				for name, n := range want {
					t, ok := view.Topic(name)
					if !ok || int32(len(t.Partitions)) < n {
						return false
					}
				}
				return true
			})
		}
		return Result{Resp: resp}
	}
}
