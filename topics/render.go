package topics

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"kafgo/internal/uuid"
)

// RenderDescribe writes --describe output for descs, applying the report
// flags of o. live holds the ids of the brokers the cluster reports alive.
//
// Semantics follow TopicCommand: with a partition report flag the topic
// header is not printed, only matching partitions; --topics-with-overrides
// prints only header lines, and only for topics with configs not at their
// default.
func RenderDescribe(w io.Writer, descs []TopicDescription, live map[int32]bool, o Options) error {
	var b strings.Builder
	for _, d := range descs {
		if o.TopicsWithOverrides {
			if len(d.Configs) > 0 {
				writeHeader(&b, d)
			}
			continue
		}
		if !o.reporting() {
			writeHeader(&b, d)
		}
		for _, p := range d.Partitions {
			if !o.reporting() || selected(p, d, live, o) {
				writePartition(&b, d.Name, p)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("topics: writing output: %w", err)
	}
	return nil
}

// selected applies the one report flag that is set.
func selected(p PartitionDescription, d TopicDescription, live map[int32]bool, o Options) bool {
	hasLeader := p.Leader >= 0
	switch {
	case o.UnderReplicated:
		return len(p.Replicas)-len(p.ISR) > 0
	case o.Unavailable:
		return !hasLeader || !live[p.Leader]
	case o.UnderMinISR:
		return !hasLeader || (d.MinISR > 0 && len(p.ISR) < d.MinISR)
	case o.AtMinISR:
		return d.MinISR > 0 && len(p.ISR) == d.MinISR
	}
	return true
}

func writeHeader(b *strings.Builder, d TopicDescription) {
	rf := 0
	if len(d.Partitions) > 0 {
		rf = len(d.Partitions[0].Replicas)
	}
	fmt.Fprintf(b, "Topic: %s", d.Name)
	if d.ID != (uuid.Zero) {
		fmt.Fprintf(b, "\tTopicId: %s", d.ID.String())
	}
	fmt.Fprintf(b, "\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: ", len(d.Partitions), rf)
	for i, c := range d.Configs {
		if i > 0 {
			b.WriteByte(',')
		}
		v := "null"
		if c.Value != nil {
			v = *c.Value
		}
		fmt.Fprintf(b, "%s=%s", c.Name, v)
	}
	b.WriteByte('\n')
}

func writePartition(b *strings.Builder, topic string, p PartitionDescription) {
	leader := "none"
	if p.Leader >= 0 {
		leader = fmt.Sprint(p.Leader)
	}
	fmt.Fprintf(b, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s\n",
		topic, p.Partition, leader, joinIDs(p.Replicas), joinIDs(slices.Clone(p.ISR)))
}
