package cliutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
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

// topicProblem is Kafka's "name=ERROR" entry for a topic the metadata
// answers with an error, or, when partition >= 0, for that partition of a
// topic that lacks it ("t-5=UNKNOWN_TOPIC_OR_PARTITION"), with a plain
// explanation; ok is false when there is no problem.
func topicProblem(rt kmsg.MetadataResponseTopic, partition int32) (TopicProblem, bool) {
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
		return p, true
	}
	if partition < 0 {
		return TopicProblem{}, false
	}
	for _, rp := range rt.Partitions {
		if rp.Partition == partition {
			return TopicProblem{}, false
		}
	}
	return TopicProblem{
		Entry: fmt.Sprintf("%s-%d=%s", name, partition, errName(kerr.UnknownTopicOrPartition.Code)),
		Why:   fmt.Sprintf("topic %s has no partition %d (it has %d)", name, partition, len(rt.Partitions)),
	}, true
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

// warnProblems writes the Java consumer's metadata warning, with its
// meaning, for the problems found.
func warnProblems(w io.Writer, problems []TopicProblem) {
	if len(problems) == 0 {
		return
	}
	entries := make([]string, len(problems))
	whys := make([]string, len(problems))
	for i, p := range problems {
		entries[i], whys[i] = p.Entry, p.Why
	}
	fmt.Fprintf(w, "WARN Error while fetching metadata: {%s}: %s\n", strings.Join(entries, ", "), strings.Join(whys, "; "))
}
