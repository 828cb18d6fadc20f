// Package partid names a partition: a topic and a partition number, and the
// "<topic>-<partition>" directory form Kafka gives it on disk. It is a leaf so
// that every layer (storage, replica, api, controller) can share the type
// without importing the storage engine.
package partid

import (
	"cmp"
	"fmt"
	"slices"
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

// ParseDir parses a partition directory name such as "orders-3". Topics may
// contain '-', so the partition follows the last one. Names with Kafka's
// transient suffixes (-delete, -future, -stray) are rejected: they are not
// live partitions. The topic must pass Kafka's name rules, which is also what
// keeps a name from escaping its log directory.
func ParseDir(name string) (TopicPartition, error) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return TopicPartition{}, fmt.Errorf("directory %q is not <topic>-<partition>", name)
	}
	p, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || p < 0 || name[i+1] == '+' {
		return TopicPartition{}, fmt.Errorf("directory %q: partition %q is not a non-negative int32", name, name[i+1:])
	}
	topic := name[:i]
	if err := topicname.Validate(topic); err != nil {
		return TopicPartition{}, fmt.Errorf("directory %q: %w", name, err)
	}
	return TopicPartition{Topic: topic, Partition: int32(p)}, nil
}

// Compare orders partitions by topic, then partition number.
func Compare(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// Topic is a topic's partitions, as request and record schemas group them.
type Topic struct {
	Topic      string
	Partitions []int32
}

// ByTopic groups partitions by topic, topics and partitions in order.
func ByTopic(tps []TopicPartition) []Topic {
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, Compare)
	var out []Topic
	for _, tp := range sorted {
		if n := len(out); n == 0 || out[n-1].Topic != tp.Topic {
			out = append(out, Topic{Topic: tp.Topic})
		}
		last := &out[len(out)-1]
		last.Partitions = append(last.Partitions, tp.Partition)
	}
	return out
}

// TopicSlot is the index of topic's entry in a request's or response's list
// of topics, built in first-seen order: idx maps the topics added so far to
// their indexes, and add appends the topic's entry the first time it is
// seen, so the list must grow only through TopicSlot.
func TopicSlot(idx map[string]int, topic string, add func()) int {
	i, ok := idx[topic]
	if !ok {
		i = len(idx)
		idx[topic] = i
		add()
	}
	return i
}
