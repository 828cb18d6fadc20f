package storage

import (
	"fmt"
	"strconv"
	"strings"

	"kafgo/internal/topicname"
)

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String is the partition's directory name, "topic-3".
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.FormatInt(int64(tp.Partition), 10)
}

// ValidateTopicName applies Kafka's topic name rules (internal/topicname).
// Besides matching Kafka, this is what keeps a topic name from escaping its
// log directory.
func ValidateTopicName(topic string) error {
	if err := topicname.Validate(topic); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// ParseTopicPartitionDir parses a partition directory name such as
// "orders-3". Topics may contain '-', so the partition follows the last one.
// Names with Kafka's transient suffixes (-delete, -future, -stray) are
// rejected: they are not live partitions.
func ParseTopicPartitionDir(name string) (TopicPartition, error) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return TopicPartition{}, fmt.Errorf("storage: directory %q is not <topic>-<partition>", name)
	}
	p, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || p < 0 || name[i+1] == '+' {
		return TopicPartition{}, fmt.Errorf("storage: directory %q: partition %q is not a non-negative int32", name, name[i+1:])
	}
	topic := name[:i]
	if err := ValidateTopicName(topic); err != nil {
		return TopicPartition{}, fmt.Errorf("storage: directory %q: %w", name, err)
	}
	return TopicPartition{Topic: topic, Partition: int32(p)}, nil
}
