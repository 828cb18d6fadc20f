package reassign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// PartitionStatus is --verify's finding for one partition of the file.
type PartitionStatus struct {
	TopicPartition
	Current []int32 // replicas now (the full set while moving)
	Target  []int32
	Done    bool // no reassignment of it in flight
}

// RenderStatus writes --verify's status block, sorted by partition.
func RenderStatus(w io.Writer, states []PartitionStatus) error {
	states = slices.Clone(states)
	slices.SortFunc(states, func(a, b PartitionStatus) int { return compareTP(a.TopicPartition, b.TopicPartition) })
	var b strings.Builder
	b.WriteString("Status of partition reassignment:\n")
	for _, s := range states {
		switch {
		case !s.Done:
			fmt.Fprintf(&b, "Reassignment of partition %s is still in progress.\n", s.TopicPartition)
		case slices.Equal(s.Current, s.Target):
			fmt.Fprintf(&b, "Reassignment of partition %s is completed.\n", s.TopicPartition)
		default:
			fmt.Fprintf(&b, "There is no active reassignment of partition %s, but replica set is %s rather than %s.\n",
				s.TopicPartition, joinInts(s.Current), joinInts(s.Target))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// statuses is Kafka's findPartitionReassignmentStates: a partition in
// flight is in progress; any other is done, compared by its replicas now (an
// unknown topic has none).
func statuses(ctx context.Context, c *cluster, moves []Move) ([]PartitionStatus, bool, error) {
	inFlight, err := c.inFlight(ctx, nil)
	if err != nil {
		return nil, false, err
	}
	var lookUp []string
	for _, m := range moves {
		if _, ok := inFlight[m.TopicPartition]; !ok && !slices.Contains(lookUp, m.Topic) {
			lookUp = append(lookUp, m.Topic)
		}
	}
	current := map[TopicPartition][]int32{}
	for _, topic := range lookUp {
		a, err := c.topicAssignments(ctx, []string{topic})
		var notFound *topicNotFoundError
		if err != nil && !errors.As(err, &notFound) {
			return nil, false, err
		}
		for p, rs := range a {
			current[p] = rs
		}
	}
	ongoing := false
	out := make([]PartitionStatus, 0, len(moves))
	for _, m := range moves {
		s := PartitionStatus{TopicPartition: m.TopicPartition, Target: m.Replicas, Done: true}
		if r, ok := inFlight[m.TopicPartition]; ok {
			s.Current, s.Done = r.Replicas, false
			ongoing = true
		} else {
			s.Current = current[m.TopicPartition]
		}
		out = append(out, s)
	}
	return out, ongoing, nil
}

func verify(ctx context.Context, c *cluster, o Options, fileJSON []byte, out io.Writer) error {
	moves, err := parseMoves(fileJSON)
	if err != nil {
		return err
	}
	states, ongoing, err := statuses(ctx, c, moves)
	if err != nil {
		return err
	}
	if err := RenderStatus(out, states); err != nil {
		return err
	}
	if ongoing || o.PreserveThrottles {
		return nil
	}
	return clearThrottles(ctx, c, moves, out)
}

// clearThrottles is Kafka's clearAllThrottles: once nothing is moving it
// deletes the throttle rates of every live broker and every broker the file
// names, and the throttled-replica lists of every topic in the file. It
// clears them all, not just what the file's moves set, because (as Kafka
// says) the tool cannot know which brokers earlier moves involved.
func clearThrottles(ctx context.Context, c *cluster, moves []Move, out io.Writer) error {
	live, err := c.brokers(ctx)
	if err != nil {
		return err
	}
	var ids []int32
	for _, b := range live {
		ids = append(ids, b.id)
	}
	var topics []string
	for _, m := range moves {
		for _, r := range m.Replicas {
			if !slices.Contains(ids, r) {
				ids = append(ids, r)
			}
		}
		if !slices.Contains(topics, m.Topic) {
			topics = append(topics, m.Topic)
		}
	}
	slices.Sort(ids)
	slices.Sort(topics)
	if _, err := fmt.Fprintf(out, clearingBrokersMessage, pluralS(len(ids)), joinInts(ids)); err != nil {
		return err
	}
	if err := c.clearBrokerThrottles(ctx, ids); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, clearingTopicsMessage, pluralS(len(topics)), strings.Join(topics, ",")); err != nil {
		return err
	}
	return c.clearTopicThrottles(ctx, topics)
}

func cancel(ctx context.Context, c *cluster, o Options, fileJSON []byte, out io.Writer) error {
	moves, err := parseMoves(fileJSON)
	if err != nil {
		return err
	}
	parts := movedPartitions(moves)
	inFlight, err := c.inFlight(ctx, parts)
	if err != nil {
		return err
	}
	cancels := map[TopicPartition][]int32{}
	for p, r := range inFlight {
		if len(r.Adding) > 0 || len(r.Removing) > 0 {
			cancels[p] = nil
		}
	}
	if len(cancels) > 0 {
		failed, err := c.alter(ctx, cancels)
		if err != nil {
			return err
		}
		if len(failed) > 0 {
			return terse(fmt.Sprintf("Error cancelling partition reassignment%s for:\n%s", pluralS(len(failed)), failureLines(failed)))
		}
		names := make([]TopicPartition, 0, len(cancels))
		for p := range cancels {
			names = append(names, p)
		}
		slices.SortFunc(names, compareTP)
		s := make([]string, len(names))
		for i, p := range names {
			s[i] = p.String()
		}
		if _, err := fmt.Fprintf(out, "Successfully cancelled partition reassignment%s for: %s\n", pluralS(len(names)), strings.Join(s, ",")); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(out, "None of the specified partition reassignments are active."); err != nil {
		return err
	}
	// Kafka 2.8 (ReassignPartitionsCommand.scala) ends this line as every
	// other; only 3.7's Java port printed it without a line break.
	if _, err := fmt.Fprintln(out, "None of the specified partition moves are active."); err != nil {
		return err
	}
	if o.PreserveThrottles {
		return nil
	}
	return clearThrottles(ctx, c, moves, out)
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RenderList writes --list's output.
func RenderList(w io.Writer, inFlight map[TopicPartition]InFlight) error {
	if len(inFlight) == 0 {
		_, err := io.WriteString(w, "No partition reassignments found.\n")
		return err
	}
	parts := make([]TopicPartition, 0, len(inFlight))
	for p := range inFlight {
		parts = append(parts, p)
	}
	slices.SortFunc(parts, compareTP)
	var b strings.Builder
	b.WriteString("Current partition reassignments:\n")
	for _, p := range parts {
		r := inFlight[p]
		fmt.Fprintf(&b, "%s: replicas: %s.", p, joinInts(r.Replicas))
		if len(r.Adding) > 0 {
			fmt.Fprintf(&b, " adding: %s.", joinInts(r.Adding))
		}
		if len(r.Removing) > 0 {
			fmt.Fprintf(&b, " removing: %s.", joinInts(r.Removing))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func list(ctx context.Context, c *cluster, out io.Writer) error {
	inFlight, err := c.inFlight(ctx, nil)
	if err != nil {
		return err
	}
	return RenderList(out, inFlight)
}

// parseMoves reads a --reassignment-json-file for --verify and --cancel:
// the moves, with log_dirs that kafgo can honour.
func parseMoves(fileJSON []byte) ([]Move, error) {
	moves, err := ParseReassignment(fileJSON)
	if err != nil {
		return nil, err
	}
	if err := checkLogDirs(moves); err != nil {
		return nil, err
	}
	return moves, nil
}

// movedPartitions lists the partitions of moves, in file order.
func movedPartitions(moves []Move) []TopicPartition {
	parts := make([]TopicPartition, len(moves))
	for i, m := range moves {
		parts[i] = m.TopicPartition
	}
	return parts
}
