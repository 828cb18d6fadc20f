package groups

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// missing is Kafka's placeholder for an unknown column value.
const missing = "-"

// Run performs o against the cluster behind cl. Tables go to out; state
// notes and per-group errors go to errOut, as Kafka prints them to stderr.
func Run(ctx context.Context, cl *kgo.Client, o Options, out, errOut io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	adm := kadm.NewClient(cl)
	adm.SetTimeoutMillis(int32(o.Timeout.Milliseconds()))
	switch o.Action {
	case ActionList:
		return list(ctx, adm, o, out)
	case ActionDescribe:
		return describe(ctx, adm, o, out, errOut)
	case ActionResetOffsets:
		return resetOffsets(ctx, adm, o, out, errOut)
	case ActionDelete:
		return deleteGroups(ctx, adm, o, out)
	case ActionDeleteOffsets:
		return deleteOffsets(ctx, adm, o, out, errOut)
	}
	return ErrActionCount
}

// isConsumerGroup mirrors Kafka's listConsumerGroups filter: a consumer
// protocol, or none at all (a group that only holds committed offsets).
func isConsumerGroup(protocolType string) bool {
	return protocolType == "consumer" || protocolType == ""
}

// selectGroups returns the groups an action covers, sorted for --all-groups.
func selectGroups(ctx context.Context, adm *kadm.Client, o Options) ([]string, error) {
	if !o.AllGroups {
		return o.Groups, nil
	}
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("groups: listing groups: %w", err)
	}
	var names []string
	for name, g := range listed {
		if isConsumerGroup(g.ProtocolType) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// groupMissing reports whether a describe result means "no such group":
// old coordinators answer Dead, KIP-1043 ones GROUP_ID_NOT_FOUND.
func groupMissing(g kadm.DescribedGroup) bool {
	return g.State == "Dead" || errors.Is(g.Err, kerr.GroupIDNotFound)
}

// stateNote prints Kafka's note for a group's state and reports whether
// there is anything to print for it.
func stateNote(errOut io.Writer, group, state string, rows int) bool {
	switch state {
	case "Dead", "":
		fmt.Fprintf(errOut, "Error: Consumer group '%s' does not exist.\n", group)
		return false
	case "Empty":
		fmt.Fprintf(errOut, "\nConsumer group '%s' has no active members.\n", group)
	case "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling":
		fmt.Fprintf(errOut, "\nConsumer group '%s' is rebalancing.\n", group)
	}
	return rows > 0
}

// width is a name column's width: its longest value, at least 15.
func width(values ...string) int {
	w := 15
	for _, v := range values {
		w = max(w, len(v))
	}
	return w
}

func joinQuoted(names []string) string {
	return "'" + strings.Join(names, "', '") + "'"
}

// fetchCommitted returns a group's committed offsets. A group that does not
// exist has none: newer brokers answer GROUP_ID_NOT_FOUND where older ones
// answer with an empty set.
func fetchCommitted(ctx context.Context, adm *kadm.Client, group string) (kadm.OffsetResponses, error) {
	committed, err := adm.FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return kadm.OffsetResponses{}, nil
	}
	return committed, err
}
