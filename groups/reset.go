package groups

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// ResetPlan is the new offset of every partition of one group.
type ResetPlan struct {
	Group   string
	Offsets []PlannedOffset // sorted by topic, partition
}

// PlannedOffset is one partition's new position.
type PlannedOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// ParseTopicScope parses one --topic value of a reset: "t" or "t:0,1".
func ParseTopicScope(s string) (string, []int32, error) {
	topic, parts, ok := strings.Cut(s, ":")
	if topic == "" {
		return "", nil, fmt.Errorf("invalid topic %q", s)
	}
	if !ok {
		return topic, nil, nil
	}
	var ps []int32
	for _, p := range strings.Split(parts, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if err != nil || n < 0 {
			return "", nil, fmt.Errorf("invalid partition %q in %q", p, s)
		}
		ps = append(ps, int32(n))
	}
	return topic, ps, nil
}

func resetOffsets(ctx context.Context, adm *kadm.Client, o Options, out, errOut io.Writer) error {
	names, err := selectGroups(ctx, adm, o)
	if err != nil {
		return err
	}
	if !o.DryRun && !o.Execute {
		fmt.Fprintln(errOut, "WARN: No action will be performed as the --execute option is missing. "+
			"In a future major release, the default behavior of this command will be to prompt the user before executing the reset rather than doing a dry run. "+
			"You should add the --dry-run option explicitly if you are scripting this command and want to keep the current default behavior without prompting.")
	}
	var plans []ResetPlan
	for _, g := range names {
		described, err := adm.DescribeGroups(ctx, g)
		if err != nil {
			return fmt.Errorf("groups: describing group %s: %w", g, err)
		}
		if d, ok := described[g]; ok && !groupMissing(d) {
			if d.Err != nil {
				return fmt.Errorf("groups: describing group %s: %w", g, d.Err)
			}
			if d.State != "Empty" {
				return fmt.Errorf("Assignments can only be reset if the group '%s' is inactive, but the current state is %s.", g, d.State)
			}
		}
		plan, err := PlanReset(ctx, adm, g, o, errOut)
		if err != nil {
			return err
		}
		if o.Execute {
			os := make(kadm.Offsets)
			for _, p := range plan.Offsets {
				os.Add(kadm.Offset{Topic: p.Topic, Partition: p.Partition, At: p.Offset, LeaderEpoch: -1})
			}
			if err := adm.CommitAllOffsets(ctx, g, os); err != nil {
				return fmt.Errorf("groups: committing offsets of %s: %w", g, err)
			}
		}
		plans = append(plans, plan)
	}
	var b strings.Builder
	writePlans(&b, plans)
	if _, err := io.WriteString(out, b.String()); err != nil {
		return fmt.Errorf("groups: writing output: %w", err)
	}
	return nil
}

func writePlans(b *strings.Builder, plans []ResetPlan) {
	rows := 0
	for _, p := range plans {
		rows += len(p.Offsets)
	}
	const format = "\n%-30s %-30s %-10s %-15s"
	if rows > 0 {
		fmt.Fprintf(b, format, "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
	}
	for _, p := range plans {
		for _, po := range p.Offsets {
			fmt.Fprintf(b, format, p.Group, po.Topic, strconv.Itoa(int(po.Partition)), strconv.FormatInt(po.Offset, 10))
		}
	}
	b.WriteByte('\n')
}

// PlanReset computes the new offsets of group for the scope and
// specification in o, without committing them. Warnings about clamped
// offsets go to errOut.
func PlanReset(ctx context.Context, adm *kadm.Client, group string, o Options, errOut io.Writer) (ResetPlan, error) {
	plan := ResetPlan{Group: group}
	committed, err := fetchCommitted(ctx, adm, group)
	if err != nil {
		return plan, fmt.Errorf("groups: fetching offsets of %s: %w", group, err)
	}
	if err := committed.Error(); err != nil {
		return plan, fmt.Errorf("groups: fetching offsets of %s: %w", group, err)
	}
	scope, err := resetScope(ctx, adm, committed, o)
	if err != nil {
		return plan, err
	}
	if len(scope) == 0 {
		return plan, nil
	}
	topics := make([]string, 0, len(scope))
	for t := range scope {
		topics = append(topics, t)
	}
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return plan, fmt.Errorf("groups: listing start offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return plan, fmt.Errorf("groups: listing end offsets: %w", err)
	}
	var byTime kadm.ListedOffsets
	switch {
	case o.ToDatetime != "":
		ts, err := ParseDatetime(o.ToDatetime)
		if err != nil {
			return plan, err
		}
		if byTime, err = adm.ListOffsetsAfterMilli(ctx, ts.UnixMilli(), topics...); err != nil {
			return plan, fmt.Errorf("groups: listing offsets by time: %w", err)
		}
	case o.ByDuration != "":
		d, err := ParseISODuration(o.ByDuration)
		if err != nil {
			return plan, err
		}
		if byTime, err = adm.ListOffsetsAfterMilli(ctx, o.now().Add(-d).UnixMilli(), topics...); err != nil {
			return plan, fmt.Errorf("groups: listing offsets by time: %w", err)
		}
	}
	lookup := func(l kadm.ListedOffsets, what, t string, p int32) (int64, error) {
		lo, ok := l.Lookup(t, p)
		if !ok {
			return 0, fmt.Errorf("groups: no %s offset for partition %s-%d", what, t, p)
		}
		if lo.Err != nil {
			return 0, fmt.Errorf("groups: %s offset of %s-%d: %w", what, t, p, lo.Err)
		}
		return lo.Offset, nil
	}
	for _, t := range slices.Sorted(mapKeys(scope)) {
		for _, p := range slices.Sorted(slices.Values(scope[t])) {
			start, err := lookup(starts, "earliest", t, p)
			if err != nil {
				return plan, err
			}
			end, err := lookup(ends, "latest", t, p)
			if err != nil {
				return plan, err
			}
			cur, haveCur := int64(0), false
			if c, ok := committed.Lookup(t, p); ok && c.Err == nil && c.At >= 0 {
				cur, haveCur = c.At, true
			}
			var off int64
			switch {
			case o.ToEarliest:
				off = start
			case o.ToLatest:
				off = end
			case o.ToCurrent:
				off = end
				if haveCur {
					off = cur
				}
			case o.ToOffset != nil:
				off = clamp(errOut, t, p, *o.ToOffset, start, end)
			case o.ShiftBy != nil:
				if !haveCur {
					return plan, fmt.Errorf("Cannot shift offset for partition %s-%d since there is no current committed offset", t, p)
				}
				off = clamp(errOut, t, p, cur+*o.ShiftBy, start, end)
			default: // by time
				ts, err := lookup(byTime, "timestamp", t, p)
				if err != nil {
					return plan, err
				}
				// No record at or after the time: the log end, as in Kafka.
				off = ts
				if off < 0 {
					off = end
				}
			}
			plan.Offsets = append(plan.Offsets, PlannedOffset{Topic: t, Partition: p, Offset: off})
		}
	}
	return plan, nil
}

// clamp keeps an offset inside the log, warning as Kafka does.
func clamp(errOut io.Writer, t string, p int32, off, start, end int64) int64 {
	switch {
	case off > end:
		fmt.Fprintf(errOut, "WARN New offset (%d) is higher than latest offset for topic partition %s-%d. Value will be set to %d\n", off, t, p, end)
		return end
	case off < start:
		fmt.Fprintf(errOut, "WARN New offset (%d) is lower than earliest offset for topic partition %s-%d. Value will be set to %d\n", off, t, p, start)
		return start
	}
	return off
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// resetScope resolves --topic / --all-topics into partitions. --all-topics
// means the partitions the group has committed offsets for, as in Kafka.
func resetScope(ctx context.Context, adm *kadm.Client, committed kadm.OffsetResponses, o Options) (map[string][]int32, error) {
	scope := map[string][]int32{}
	if o.AllTopics {
		committed.Each(func(r kadm.OffsetResponse) {
			if r.Err == nil {
				scope[r.Topic] = append(scope[r.Topic], r.Partition)
			}
		})
		return scope, nil
	}
	var whole []string
	for _, s := range o.Topics {
		t, ps, err := ParseTopicScope(s)
		if err != nil {
			return nil, err
		}
		if ps == nil {
			whole = append(whole, t)
			continue
		}
		scope[t] = append(scope[t], ps...)
	}
	if len(whole) > 0 {
		md, err := adm.Metadata(ctx, whole...)
		if err != nil {
			return nil, fmt.Errorf("groups: fetching metadata: %w", err)
		}
		for _, t := range whole {
			td, ok := md.Topics[t]
			if !ok || td.Err != nil {
				cause := errors.New("unknown topic")
				if ok {
					cause = td.Err
				}
				return nil, fmt.Errorf("groups: topic %s: %w", t, cause)
			}
			scope[t] = append(scope[t], td.Partitions.Numbers()...)
		}
	}
	for t, ps := range scope {
		slices.Sort(ps)
		scope[t] = slices.Compact(ps)
	}
	return scope, nil
}
