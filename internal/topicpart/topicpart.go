// Package topicpart is a topic partition as the client tools name, sort
// and print it: Kafka's TopicPartition, whose toString is "topic-partition".
package topicpart

import (
	"cmp"
	"slices"
	"strconv"
)

// TP names one partition of a topic.
type TP struct {
	Topic     string
	Partition int32
}

// String is TopicPartition.toString: "foo-0".
func (p TP) String() string { return p.Topic + "-" + strconv.Itoa(int(p.Partition)) }

// Compare orders by topic, then partition number.
func Compare(a, b TP) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// Sort sorts ps by topic, then partition number.
func Sort(ps []TP) { slices.SortFunc(ps, Compare) }

// Strings is each partition's String, in order.
func Strings(ps []TP) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
