package cliutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicNotCreated is what a producer tool reports when its records failed
// because the topic does not exist. The producer asked the broker to create
// it, as the Java producer does, so the broker must have refused:
// auto.create.topics.enable is off.
func TopicNotCreated(topic string) error {
	return fmt.Errorf("topic %s does not exist and the broker did not create it (auto.create.topics.enable=false); create it with kafgo topics --create --topic %s", topic, topic)
}

// IsUnknownTopic reports whether a record failed because its topic (or
// partition) does not exist.
func IsUnknownTopic(err error) bool { return errors.Is(err, kerr.UnknownTopicOrPartition) }

// MissingTopics asks the cluster about topics, without letting it create
// them, and returns Kafka's "name=ERROR" entries for each topic the
// metadata answers with an error, or, when partition >= 0, for that
// partition of a topic that lacks it ("t-5=UNKNOWN_TOPIC_OR_PARTITION"),
// each with a plain explanation.
func MissingTopics(ctx context.Context, cl *kgo.Client, topics []string, partition int32) ([]TopicProblem, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("cliutil: metadata: %w", err)
	}
	var out []TopicProblem
	for _, rt := range resp.Topics {
		name := ""
		if rt.Topic != nil {
			name = *rt.Topic
		}
		if rt.ErrorCode != 0 {
			p := TopicProblem{Entry: name + "=" + errName(rt.ErrorCode)}
			switch rt.ErrorCode {
			case kerr.UnknownTopicOrPartition.Code:
				p.Why = "topic " + name + " does not exist"
			default:
				p.Why = kerr.ErrorForCode(rt.ErrorCode).Error()
			}
			out = append(out, p)
			continue
		}
		if partition < 0 {
			continue
		}
		found := false
		for _, rp := range rt.Partitions {
			found = found || rp.Partition == partition
		}
		if !found {
			out = append(out, TopicProblem{
				Entry: fmt.Sprintf("%s-%d=%s", name, partition, errName(kerr.UnknownTopicOrPartition.Code)),
				Why:   fmt.Sprintf("topic %s has no partition %d (it has %d)", name, partition, len(rt.Partitions)),
			})
		}
	}
	return out, nil
}

// TopicProblem is one entry of Kafka's metadata warning and what it means.
type TopicProblem struct {
	Entry string // "t=UNKNOWN_TOPIC_OR_PARTITION", as the Java client logs it
	Why   string
}

func errName(code int16) string {
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(code), &ke) {
		return ke.Message
	}
	return fmt.Sprintf("UNKNOWN_SERVER_ERROR(%d)", code)
}

// WarnMissingTopics writes the Java consumer's metadata warning, with its
// meaning, for each topic (or the partition, when partition >= 0) that does
// not exist, so that a consumer of a mistyped topic does not wait in
// silence. It gives up quietly when the cluster does not answer: the
// consumer reports that itself.
func WarnMissingTopics(ctx context.Context, cl *kgo.Client, w io.Writer, topics []string, partition int32) {
	problems, err := MissingTopics(ctx, cl, topics, partition)
	if err != nil || len(problems) == 0 {
		return
	}
	entries := make([]string, len(problems))
	whys := make([]string, len(problems))
	for i, p := range problems {
		entries[i], whys[i] = p.Entry, p.Why
	}
	fmt.Fprintf(w, "WARN Error while fetching metadata: {%s}: %s\n", strings.Join(entries, ", "), strings.Join(whys, "; "))
}
