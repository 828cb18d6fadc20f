package groups

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// offsetRow is one line of the offsets view; empty strings print "-".
type offsetRow struct {
	Group, Topic, Partition    string
	Current, LogEnd, Lag       string
	ConsumerID, Host, ClientID string
	topic                      string
	partition                  int32
}

// memberRow is one line of the members view.
type memberRow struct {
	Group, ConsumerID, InstanceID, Host, ClientID string
	Partitions                                    int
	Assignment                                    map[string][]int32
}

// groupView is what describe gathers for one group.
type groupView struct {
	Group    string
	State    string
	Protocol string
	Coord    string
	Members  []memberRow
	Rows     []offsetRow

	// CoordID and CoordHost locate the coordinator (for --health).
	CoordID   int32
	CoordHost string
}

func describe(ctx context.Context, adm *kadm.Client, o Options, out, errOut io.Writer) error {
	names, err := selectGroups(ctx, adm, o)
	if err != nil {
		return err
	}
	for _, name := range names {
		v, err := collect(ctx, adm, name, !o.Members && !o.StateSet)
		if err != nil {
			return err
		}
		var b strings.Builder
		switch {
		case o.StateSet:
			if stateNote(errOut, v.Group, v.State, 1) {
				writeState(&b, v)
			}
		case o.Members:
			if stateNote(errOut, v.Group, v.State, len(v.Members)) {
				writeMembers(&b, v, o.Verbose)
			}
		case o.Health:
			if stateNote(errOut, v.Group, v.State, len(v.Rows)) {
				h, found, err := healthOf(ctx, adm, v)
				if err != nil {
					return err
				}
				writeOffsetsHealth(&b, v, h, found)
			}
		default:
			if stateNote(errOut, v.Group, v.State, len(v.Rows)) {
				writeOffsets(&b, v)
			}
		}
		if _, err := io.WriteString(out, b.String()); err != nil {
			return fmt.Errorf("groups: writing output: %w", err)
		}
	}
	return nil
}

// collect describes one group; with offsets it also fetches committed and
// log-end offsets and builds the rows of the offsets view.
func collect(ctx context.Context, adm *kadm.Client, group string, offsets bool) (groupView, error) {
	v := groupView{Group: group}
	described, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return v, fmt.Errorf("groups: describing group %s: %w", group, err)
	}
	g, ok := described[group]
	if !ok || groupMissing(g) {
		v.State = "Dead"
		return v, nil
	}
	if g.Err != nil {
		return v, fmt.Errorf("groups: describing group %s: %w", group, g.Err)
	}
	v.State, v.Protocol = g.State, g.Protocol
	v.Coord = fmt.Sprintf("%s:%d (%d)", g.Coordinator.Host, g.Coordinator.Port, g.Coordinator.NodeID)
	v.CoordID, v.CoordHost = g.Coordinator.NodeID, g.Coordinator.Host
	for _, m := range g.Members {
		mr := memberRow{Group: group, ConsumerID: m.MemberID, Host: m.ClientHost, ClientID: m.ClientID, Assignment: map[string][]int32{}}
		if m.InstanceID != nil {
			mr.InstanceID = *m.InstanceID
		}
		if ca, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range ca.Topics {
				mr.Assignment[t.Topic] = append(mr.Assignment[t.Topic], t.Partitions...)
				mr.Partitions += len(t.Partitions)
			}
		}
		v.Members = append(v.Members, mr)
	}
	if !offsets {
		return v, nil
	}
	committed, err := fetchCommitted(ctx, adm, group)
	if err != nil {
		return v, fmt.Errorf("groups: fetching offsets of %s: %w", group, err)
	}
	if err := committed.Error(); err != nil {
		return v, fmt.Errorf("groups: fetching offsets of %s: %w", group, err)
	}
	topicSet := map[string]bool{}
	committed.Each(func(r kadm.OffsetResponse) { topicSet[r.Topic] = true })
	for _, m := range v.Members {
		for t := range m.Assignment {
			topicSet[t] = true
		}
	}
	ends := kadm.ListedOffsets{}
	if len(topicSet) > 0 {
		topics := make([]string, 0, len(topicSet))
		for t := range topicSet {
			topics = append(topics, t)
		}
		if ends, err = adm.ListEndOffsets(ctx, topics...); err != nil {
			return v, fmt.Errorf("groups: listing end offsets: %w", err)
		}
	}
	row := func(topic string, p int32, id, host, client string) offsetRow {
		r := offsetRow{Group: group, Topic: topic, Partition: strconv.Itoa(int(p)), ConsumerID: id, Host: host, ClientID: client, topic: topic, partition: p}
		cur, haveCur := int64(-1), false
		if c, ok := committed.Lookup(topic, p); ok && c.Err == nil && c.At >= 0 {
			cur, haveCur = c.At, true
			r.Current = strconv.FormatInt(cur, 10)
		}
		if e, ok := ends.Lookup(topic, p); ok && e.Err == nil && e.Offset >= 0 {
			r.LogEnd = strconv.FormatInt(e.Offset, 10)
			if haveCur {
				r.Lag = strconv.FormatInt(e.Offset-cur, 10)
			}
		}
		return r
	}
	// Members with the most partitions first, as Kafka sorts them; ties
	// by member id so the output is stable.
	members := slices.Clone(v.Members)
	slices.SortStableFunc(members, func(a, b memberRow) int {
		if c := cmp.Compare(b.Partitions, a.Partitions); c != 0 {
			return c
		}
		return cmp.Compare(a.ConsumerID, b.ConsumerID)
	})
	assigned := map[string]map[int32]bool{}
	for _, m := range members {
		if m.Partitions == 0 {
			// A member without partitions still gets a row.
			v.Rows = append(v.Rows, offsetRow{Group: group, ConsumerID: m.ConsumerID, Host: m.Host, ClientID: m.ClientID})
			continue
		}
		var rows []offsetRow
		for t, ps := range m.Assignment {
			for _, p := range ps {
				if assigned[t] == nil {
					assigned[t] = map[int32]bool{}
				}
				assigned[t][p] = true
				rows = append(rows, row(t, p, m.ConsumerID, m.Host, m.ClientID))
			}
		}
		sortRows(rows)
		v.Rows = append(v.Rows, rows...)
	}
	var rest []offsetRow
	committed.Each(func(c kadm.OffsetResponse) {
		if !assigned[c.Topic][c.Partition] {
			rest = append(rest, row(c.Topic, c.Partition, "", "", ""))
		}
	})
	sortRows(rest)
	v.Rows = append(v.Rows, rest...)
	return v, nil
}

func sortRows(rows []offsetRow) {
	slices.SortFunc(rows, func(a, b offsetRow) int {
		if c := cmp.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return cmp.Compare(a.partition, b.partition)
	})
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

func writeOffsets(b *strings.Builder, v groupView) {
	gw, tw, cw, hw := 15, 15, 15, 15
	for _, r := range v.Rows {
		gw = max(gw, len(r.Group))
		tw = max(tw, len(orMissing(r.Topic)))
		cw = max(cw, len(orMissing(r.ConsumerID)))
		hw = max(hw, len(orMissing(r.Host)))
	}
	line := func(cols ...string) {
		fmt.Fprintf(b, "\n%-*s %-*s %-10s %-15s %-15s %-15s %-*s %-*s %s",
			gw, cols[0], tw, cols[1], cols[2], cols[3], cols[4], cols[5], cw, cols[6], hw, cols[7], cols[8])
	}
	line("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")
	for _, r := range v.Rows {
		line(r.Group, orMissing(r.Topic), orMissing(r.Partition), orMissing(r.Current), orMissing(r.LogEnd),
			orMissing(r.Lag), orMissing(r.ConsumerID), orMissing(r.Host), orMissing(r.ClientID))
	}
	b.WriteByte('\n')
}

func writeMembers(b *strings.Builder, v groupView, verbose bool) {
	gw, cw, iw, hw, clw := 15, 15, 17, 15, 15
	withInstance := false
	for _, m := range v.Members {
		gw, cw, iw = max(gw, len(m.Group)), max(cw, len(m.ConsumerID)), max(iw, len(m.InstanceID))
		hw, clw = max(hw, len(m.Host)), max(clw, len(m.ClientID))
		withInstance = withInstance || m.InstanceID != ""
	}
	row := func(group, id, instance, host, client, parts string) {
		if withInstance {
			fmt.Fprintf(b, "%-*s %-*s %-*s %-*s %-*s %-15s ", gw, group, cw, id, iw, instance, hw, host, clw, client, parts)
		} else {
			fmt.Fprintf(b, "%-*s %-*s %-*s %-*s %-15s ", gw, group, cw, id, hw, host, clw, client, parts)
		}
	}
	b.WriteByte('\n')
	row("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
	if verbose {
		b.WriteString("ASSIGNMENT")
	}
	b.WriteByte('\n')
	for _, m := range v.Members {
		row(m.Group, m.ConsumerID, m.InstanceID, m.Host, m.ClientID, strconv.Itoa(m.Partitions))
		if verbose {
			b.WriteString(assignmentString(m.Assignment))
		}
		b.WriteByte('\n')
	}
}

// assignmentString renders "t1(0,1), t2(3)", topics and partitions sorted.
func assignmentString(a map[string][]int32) string {
	if len(a) == 0 {
		return missing
	}
	topics := make([]string, 0, len(a))
	for t := range a {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	parts := make([]string, 0, len(topics))
	for _, t := range topics {
		ps := slices.Sorted(slices.Values(a[t]))
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = strconv.Itoa(int(p))
		}
		parts = append(parts, t+"("+strings.Join(s, ",")+")")
	}
	return strings.Join(parts, ", ")
}

func writeState(b *strings.Builder, v groupView) {
	gw := width(v.Group)
	cw := max(25, len(v.Coord))
	line := func(cols ...string) {
		fmt.Fprintf(b, "\n%-*s %-*s %-20s %-20s %s", gw, cols[0], cw, cols[1], cols[2], cols[3], cols[4])
	}
	line("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
	line(v.Group, v.Coord, v.Protocol, v.State, strconv.Itoa(len(v.Members)))
	b.WriteByte('\n')
}
