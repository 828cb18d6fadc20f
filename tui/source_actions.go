package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/groups"
)

// Actor changes the cluster. Every action the TUI offers goes through a
// confirm prompt first, and none at all with --read-only.
type Actor interface {
	CreateTopic(ctx context.Context, name string, partitions int32, rf int16) error
	DeleteTopic(ctx context.Context, name string) error
	// AddPartitions raises a topic's partition count to total.
	AddPartitions(ctx context.Context, topic string, total int) error
	// AlterConfig sets a config (IncrementalAlterConfigs), or deletes its
	// override when value is nil.
	AlterConfig(ctx context.Context, r ConfigResource, name string, value *string) error
	// ResetOffsets moves an empty group's committed offsets, on every
	// partition it has committed, and says how many it moved.
	ResetOffsets(ctx context.Context, group string, to ResetTo) (int, error)
	// ElectPreferred runs a preferred leader election on the partitions
	// (every partition when nil) and says what came of it.
	ElectPreferred(ctx context.Context, partitions map[string][]int32) (string, error)
}

// ResetTo is where ResetOffsets moves a group: Kafka's --to-earliest,
// --to-latest or --to-offset.
type ResetTo struct {
	Earliest, Latest bool
	Offset           int64
}

func (r ResetTo) String() string {
	switch {
	case r.Earliest:
		return "earliest"
	case r.Latest:
		return "latest"
	}
	return "offset " + strconv.FormatInt(r.Offset, 10)
}

// withMessage adds a broker's error message to its error code.
func withMessage(err error, msg string) error {
	if msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, msg)
}

// CreateTopic sends CreateTopics; -1 partitions or replication factor
// takes the broker's default (KIP-464).
func (l *Live) CreateTopic(ctx context.Context, name string, partitions int32, rf int16) error {
	r, err := l.adm.CreateTopic(ctx, partitions, rf, nil, name)
	if err == nil {
		err = withMessage(r.Err, r.ErrMessage)
	}
	if err != nil {
		return fmt.Errorf("tui: create topic %s: %w", name, err)
	}
	return nil
}

// DeleteTopic sends DeleteTopics.
func (l *Live) DeleteTopic(ctx context.Context, name string) error {
	r, err := l.adm.DeleteTopic(ctx, name)
	if err == nil {
		err = withMessage(r.Err, r.ErrMessage)
	}
	if err != nil {
		return fmt.Errorf("tui: delete topic %s: %w", name, err)
	}
	return nil
}

// AddPartitions sends CreatePartitions with the new total.
func (l *Live) AddPartitions(ctx context.Context, topic string, total int) error {
	rs, err := l.adm.UpdatePartitions(ctx, total, topic)
	if err == nil {
		if r, ok := rs[topic]; ok {
			err = withMessage(r.Err, r.ErrMessage)
		}
	}
	if err != nil {
		return fmt.Errorf("tui: add partitions to %s: %w", topic, err)
	}
	return nil
}

// AlterConfig sends IncrementalAlterConfigs (Kafka 2.3 and later).
func (l *Live) AlterConfig(ctx context.Context, r ConfigResource, name string, value *string) error {
	op := kadm.AlterConfig{Op: kadm.SetConfig, Name: name, Value: value}
	if value == nil {
		op.Op = kadm.DeleteConfig
	}
	var (
		rs  kadm.AlterConfigsResponses
		err error
	)
	if r.Broker {
		id, perr := strconv.ParseInt(r.Name, 10, 32)
		if perr != nil {
			return fmt.Errorf("tui: broker id %q: %w", r.Name, perr)
		}
		rs, err = l.adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{op}, int32(id))
	} else {
		rs, err = l.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{op}, r.Name)
	}
	if err == nil {
		for _, a := range rs {
			if a.Err != nil {
				err = withMessage(a.Err, a.ErrMessage)
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("tui: alter %s of %s: %w", name, r, err)
	}
	return nil
}

// ResetOffsets does what kafka-consumer-groups --reset-offsets
// --all-topics --execute does, with the same rule: the group must have
// no members, or they would overwrite the new offsets.
func (l *Live) ResetOffsets(ctx context.Context, group string, to ResetTo) (int, error) {
	described, err := l.adm.DescribeGroups(ctx, group)
	if err != nil {
		return 0, fmt.Errorf("tui: describe group %s: %w", group, err)
	}
	if d, ok := described[group]; ok {
		if d.Err != nil {
			return 0, fmt.Errorf("tui: describe group %s: %w", group, d.Err)
		}
		if d.State != "Empty" && d.State != "Dead" {
			return 0, fmt.Errorf("tui: group %s is %s: offsets can only be reset while it has no members", group, d.State)
		}
	}
	o := groups.Options{AllTopics: true, ToEarliest: to.Earliest, ToLatest: to.Latest}
	if !to.Earliest && !to.Latest {
		off := to.Offset
		o.ToOffset = &off
	}
	// PlanReset warns about clamped offsets; the plan itself is what the
	// view reports.
	plan, err := groups.PlanReset(ctx, l.adm, group, o, io.Discard)
	if err != nil {
		return 0, fmt.Errorf("tui: reset offsets of %s: %w", group, err)
	}
	if len(plan.Offsets) == 0 {
		return 0, nil
	}
	offs := kadm.Offsets{}
	for _, p := range plan.Offsets {
		offs.Add(kadm.Offset{Topic: p.Topic, Partition: p.Partition, At: p.Offset, LeaderEpoch: -1})
	}
	if err := l.adm.CommitAllOffsets(ctx, group, offs); err != nil {
		return 0, fmt.Errorf("tui: commit offsets of %s: %w", group, err)
	}
	return len(plan.Offsets), nil
}

// ElectPreferred sends ElectLeaders (Kafka 2.2 and later). A partition
// already led by its preferred replica needs no election, which is no
// failure.
func (l *Live) ElectPreferred(ctx context.Context, partitions map[string][]int32) (string, error) {
	var set kadm.TopicsSet
	if partitions != nil {
		set = kadm.TopicsSet{}
		for t, ps := range partitions {
			set.Add(t, ps...)
		}
	}
	rs, err := l.adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, set)
	if err != nil {
		return "", fmt.Errorf("tui: elect preferred leaders: %w", err)
	}
	elected, notNeeded := 0, 0
	var failed []string
	for _, ps := range rs {
		for _, r := range ps {
			switch {
			case r.Err == nil:
				elected++
			case errors.Is(r.Err, kerr.ElectionNotNeeded):
				notNeeded++
			default:
				failed = append(failed, fmt.Sprintf("%s-%d: %v", r.Topic, r.Partition, withMessage(r.Err, r.ErrMessage)))
			}
		}
	}
	sort.Strings(failed)
	msg := fmt.Sprintf("%s elected, %d already preferred", plural(elected, "leader", "leaders"), notNeeded)
	if len(failed) > 0 {
		return msg, fmt.Errorf("tui: elect preferred leaders: %d failed: %s", len(failed), strings.Join(failed[:min(len(failed), 3)], "; "))
	}
	return msg, nil
}
