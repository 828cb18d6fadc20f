package reassign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"kafgo/internal/placement"
)

// parseBrokerList reads --broker-list ("0,1,2") and refuses duplicates.
func parseBrokerList(s string) ([]int32, error) {
	var ids, dups []int32
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("For input string: %q", f)
		}
		id := int32(n)
		if slices.Contains(ids, id) && !slices.Contains(dups, id) {
			dups = append(dups, id)
		}
		ids = append(ids, id)
	}
	if len(dups) > 0 {
		slices.Sort(dups)
		return nil, fmt.Errorf("Broker list contains duplicate entries: %s", javaInts(dups))
	}
	return ids, nil
}

func duplicateTopics(topics []string) []string {
	var dups []string
	for i, t := range topics {
		if slices.Contains(topics[:i], t) && !slices.Contains(dups, t) {
			dups = append(dups, t)
		}
	}
	slices.Sort(dups)
	return dups
}

// usableBrokers is Kafka's getBrokerMetadata: the live brokers of the
// list, with racks unless rack awareness is off; some racked and some not
// is refused.
func usableBrokers(live []broker, list []int32, rackAware bool) ([]placement.BrokerRack, error) {
	var out []placement.BrokerRack
	rackless := 0
	for _, b := range live {
		if !slices.Contains(list, b.id) {
			continue
		}
		rack := b.rack
		if !rackAware {
			rack = ""
		}
		if rack == "" {
			rackless++
		}
		out = append(out, placement.BrokerRack{ID: b.id, Rack: rack})
	}
	if rackAware && rackless != 0 && rackless != len(out) {
		return nil, errors.New("Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information.")
	}
	return out, nil
}

// placementStart gives placement's start index and shift: random (-1), as
// in Kafka; tests fix them to get a reproducible proposal.
var placementStart = func() (startIndex, shift int) { return -1, -1 }

// proposeAssignment places every topic's partitions anew on brokers with
// Kafka's algorithm, keeping each topic's partition count and replication
// factor (that of its partition 0).
func proposeAssignment(current map[TopicPartition][]int32, brokers []placement.BrokerRack) (map[TopicPartition][]int32, error) {
	counts := map[string]int{}
	rf := map[string]int{}
	for p, rs := range current {
		counts[p.Topic]++
		if p.Partition == 0 {
			rf[p.Topic] = len(rs)
		}
	}
	topics := make([]string, 0, len(counts))
	for t := range counts {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	proposed := map[TopicPartition][]int32{}
	for _, t := range topics {
		if rf[t] > len(brokers) {
			return nil, fmt.Errorf("Replication factor: %d larger than available brokers: %d.", rf[t], len(brokers))
		}
		start, shift := placementStart()
		a, err := placement.AssignReplicas(brokers, counts[t], rf[t], 0, start, shift)
		if err != nil {
			return nil, fmt.Errorf("reassign: placing %s: %w", t, err)
		}
		for p, rs := range a {
			proposed[TopicPartition{Topic: t, Partition: p}] = rs
		}
	}
	return proposed, nil
}

func generate(ctx context.Context, c *cluster, o Options, topicsJSON []byte, out io.Writer) error {
	list, err := parseBrokerList(o.BrokerList)
	if err != nil {
		return err
	}
	topics, err := ParseTopicsToMove(topicsJSON)
	if err != nil {
		return err
	}
	if dups := duplicateTopics(topics); len(dups) > 0 {
		return fmt.Errorf("List of topics to reassign contains duplicate entries: %s", javaStrings(dups))
	}
	current, err := c.topicAssignments(ctx, topics)
	if err != nil {
		return err
	}
	live, err := c.brokers(ctx)
	if err != nil {
		return err
	}
	usable, err := usableBrokers(live, list, !o.DisableRackAware)
	if err != nil {
		return err
	}
	proposed, err := proposeAssignment(current, usable)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Current partition replica assignment\n%s\n\nProposed partition reassignment configuration\n%s\n",
		FormatReassignment(current), FormatReassignment(proposed))
	return err
}
