package groups

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// knownStates are the group states --state accepts, in Kafka's spelling.
var knownStates = []string{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling"}

// ParseStates parses a --state list, case-insensitively.
func ParseStates(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i := slices.IndexFunc(knownStates, func(k string) bool { return strings.EqualFold(k, part) })
		if i < 0 {
			return nil, fmt.Errorf("Invalid state list '%s'. Valid states are: %s", s, strings.Join(knownStates, ", "))
		}
		out = append(out, knownStates[i])
	}
	return out, nil
}

// list prints consumer group ids, sorted; with --state, a GROUP STATE
// table restricted to the given states (all when none are given).
func list(ctx context.Context, adm *kadm.Client, o Options, out io.Writer) error {
	listed, err := adm.ListGroups(ctx, o.States...)
	if err != nil {
		return fmt.Errorf("groups: listing groups: %w", err)
	}
	var names []string
	for name, g := range listed {
		if !isConsumerGroup(g.ProtocolType) {
			continue
		}
		// Brokers that ignore the state filter still report states.
		if len(o.States) > 0 && !slices.Contains(o.States, g.State) {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	if !o.StateSet {
		for _, n := range names {
			b.WriteString(n + "\n")
		}
	} else {
		w := width(names...)
		fmt.Fprintf(&b, "%-*s %s\n", w, "GROUP", "STATE")
		for _, n := range names {
			fmt.Fprintf(&b, "%-*s %s\n", w, n, listed[n].State)
		}
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return fmt.Errorf("groups: writing output: %w", err)
	}
	return nil
}
