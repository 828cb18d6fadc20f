package storage

import (
	"fmt"

	"kafgo/broker/partid"
	"kafgo/internal/topicname"
)

// ValidateTopicName applies Kafka's topic name rules (internal/topicname).
// Besides matching Kafka, this is what keeps a topic name from escaping its
// log directory.
func ValidateTopicName(topic string) error {
	if err := topicname.Validate(topic); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// parseTopicPartitionDir is partid.ParseDir with this package's error prefix.
func parseTopicPartitionDir(name string) (partid.TopicPartition, error) {
	tp, err := partid.ParseDir(name)
	if err != nil {
		return tp, fmt.Errorf("storage: %w", err)
	}
	return tp, nil
}
