package topics

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// deleteTopics deletes every topic --topic matches; Kafka prints nothing
// on success.
func deleteTopics(ctx context.Context, cl *kgo.Client, adm *kadm.Client, o Options) error {
	_, names, err := matchingTopics(ctx, adm, o)
	if err != nil {
		return err
	}
	if err := ensureExists(o, names); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = requestTimeoutMillis
	for _, name := range names {
		n := name
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = &n
		req.Topics = append(req.Topics, t)
		req.TopicNames = append(req.TopicNames, name)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("deleting topics: %w", err)
	}
	for _, rt := range resp.Topics {
		name := ""
		if rt.Topic != nil {
			name = *rt.Topic
		}
		if err := brokerError(name, rt.ErrorCode, rt.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}
