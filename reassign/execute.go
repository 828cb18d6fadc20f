package reassign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

const existingReassignment = "Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment."

// validateMoves is Kafka's parseExecuteAssignmentArgs checks, plus the
// refusal of log directory moves, which kafgo does not implement.
func validateMoves(moves []Move) error {
	if len(moves) == 0 {
		return errors.New("Partition reassignment list cannot be empty")
	}
	for _, m := range moves {
		if len(m.Replicas) == 0 {
			return errors.New("Partition replica list cannot be empty")
		}
	}
	var dupParts []string
	for i, m := range moves {
		s := m.TopicPartition.String()
		if slices.ContainsFunc(moves[:i], func(o Move) bool { return o.TopicPartition == m.TopicPartition }) && !slices.Contains(dupParts, s) {
			dupParts = append(dupParts, s)
		}
	}
	if len(dupParts) > 0 {
		return fmt.Errorf("Partition reassignment contains duplicate topic partitions: %s", strings.Join(dupParts, ","))
	}
	var dupReplicas []string
	for _, m := range moves {
		var dups []int32
		for i, r := range m.Replicas {
			if slices.Contains(m.Replicas[:i], r) && !slices.Contains(dups, r) {
				dups = append(dups, r)
			}
		}
		if len(dups) > 0 {
			dupReplicas = append(dupReplicas, fmt.Sprintf("%s contains multiple entries for %s", m.TopicPartition, joinInts(dups)))
		}
	}
	if len(dupReplicas) > 0 {
		return fmt.Errorf("Partition replica lists may not contain duplicate entries: %s", strings.Join(dupReplicas, ". "))
	}
	return checkLogDirs(moves)
}

func checkLogDirs(moves []Move) error {
	for _, m := range moves {
		for i, d := range m.LogDirs {
			if d != anyLogDir {
				return fmt.Errorf("Replica %d of partition %s is assigned to log directory %s: kafgo does not implement moves between log directories; use \"any\"", m.Replicas[i], m.TopicPartition, d)
			}
		}
	}
	return nil
}

func execute(ctx context.Context, c *cluster, o Options, fileJSON []byte, out io.Writer) error {
	moves, err := ParseReassignment(fileJSON)
	if err != nil {
		return err
	}
	if err := validateMoves(moves); err != nil {
		return err
	}
	current, err := c.inFlight(ctx, nil)
	if err != nil {
		return err
	}
	if !o.Additional && len(current) > 0 {
		return terse(existingReassignment)
	}
	if err := verifyBrokerIDs(ctx, c, moves); err != nil {
		return err
	}
	parts := movedPartitions(moves)
	assigned, err := c.partitionAssignments(ctx, parts)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "Current partition replica assignment\n\n%s\n\nSave this to use as the --reassignment-json-file option during rollback\n", FormatReassignment(assigned)); err != nil {
		return err
	}
	targets := map[TopicPartition][]int32{}
	for _, m := range moves {
		targets[m.TopicPartition] = m.Replicas
	}
	if o.Throttle >= 0 {
		// Before the moves start, so no replica copies unthrottled. With
		// --additional this is also how a running move's rate is changed.
		if _, err := fmt.Fprintln(out, mustVerifyWarning); err != nil {
			return err
		}
		if err := c.setThrottles(ctx, proposedMoves(current, targets, assigned), o.Throttle); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, throttleSetMessage, o.Throttle); err != nil {
			return err
		}
	}
	failed, err := c.alter(ctx, targets)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return terse("Error reassigning partition(s):\n" + failureLines(failed))
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.String()
	}
	plural := "s"
	if len(parts) == 1 {
		plural = ""
	}
	_, err = fmt.Fprintf(out, "Successfully started partition reassignment%s for %s\n", plural, strings.Join(names, ","))
	return err
}

// verifyBrokerIDs refuses a file naming a broker the cluster does not have.
func verifyBrokerIDs(ctx context.Context, c *cluster, moves []Move) error {
	live, err := c.brokers(ctx)
	if err != nil {
		return err
	}
	var named []int32
	for _, m := range moves {
		named = append(named, m.Replicas...)
	}
	slices.Sort(named)
	for _, id := range named {
		if !slices.ContainsFunc(live, func(b broker) bool { return b.id == id }) {
			return fmt.Errorf("Unknown broker id %d", id)
		}
	}
	return nil
}

// failureLines renders "topic-p: message" lines sorted by partition.
func failureLines(failed map[TopicPartition]string) string {
	parts := make([]TopicPartition, 0, len(failed))
	for p := range failed {
		parts = append(parts, p)
	}
	slices.SortFunc(parts, compareTP)
	lines := make([]string, len(parts))
	for i, p := range parts {
		lines[i] = p.String() + ": " + failed[p]
	}
	return strings.Join(lines, "\n")
}
