package rebalance

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"kafgo/internal/topicpart"
	"kafgo/reassign"
)

// current is a broker's figures as the cluster runs now: leaders are the
// actual ones, not the preferred.
func current(m *Model, id int32) BrokerLoad {
	l := BrokerLoad{}
	for _, p := range m.Partitions {
		for _, r := range p.Replicas {
			if r != id {
				continue
			}
			l.Replicas++
			l.Disk += p.Size
			l.BytesIn += p.BytesIn
		}
		if p.Leader == id {
			l.Leaders++
			l.BytesOut += p.BytesOut + p.BytesIn*float64(len(p.Replicas)-1)
		}
	}
	return l
}

// Render prints the plan: the goals before and after, the brokers' figures
// before and after, what moves, and the reassignment JSON (current, for a
// rollback, and proposed).
func Render(w io.Writer, p *Plan) {
	fmt.Fprintln(w, "Goals, in priority order (hard goals must be met; each goal may not undo an earlier one):")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "GOAL\tKIND\tBEFORE\tAFTER")
	for _, g := range p.Goals {
		kind := "soft"
		if g.Hard {
			kind = "hard"
		}
		before, after := goalState(g, g.Before), goalState(g, g.After)
		if !g.Applies {
			before, after = "n/a", notApplies(g.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", g.Name, kind, before, after)
	}
	pref := "met"
	if p.NotPreferred > 0 {
		pref = fmt.Sprintf("%d not led by their preferred replica", p.NotPreferred)
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", PreferredLeaderElection, "soft", pref, "met once the execution elects preferred leaders")
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Brokers, before -> after (leaders after are the preferred replicas; bytes in and out per second):")
	tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "BROKER\tRACK\tREPLICAS\tLEADERS\tDISK\tBYTES-IN\tBYTES-OUT")
	for _, b := range p.Before.Brokers {
		before, after := current(p.Before, b.ID), p.After.Load(b.ID)
		name := strconv.Itoa(int(b.ID))
		switch {
		case b.New:
			name += " (added)"
		case b.Removed:
			name += " (removed)"
		}
		rack := b.Rack
		if rack == "" {
			rack = "-"
		}
		traffic := func(x float64) string {
			if !p.Before.Traffic {
				return "-"
			}
			return human(x) + "/s"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d -> %d\t%d -> %d\t%s -> %s\t%s -> %s\t%s -> %s\n", name, rack,
			before.Replicas, after.Replicas, before.Leaders, after.Leaders,
			human(float64(before.Disk)), human(float64(after.Disk)),
			traffic(before.BytesIn), traffic(after.BytesIn), traffic(before.BytesOut), traffic(after.BytesOut))
	}
	tw.Flush()
	for _, b := range p.Before.Brokers {
		if len(b.LogDirs) > 1 {
			fmt.Fprintf(w, "Broker %d log directories:", b.ID)
			for _, d := range b.LogDirs {
				var used int64
				for _, q := range p.Before.Partitions {
					if q.Dirs[b.ID] == d.Path {
						used += q.Size
					}
				}
				fmt.Fprintf(w, " %s %s", d.Path, human(float64(used)))
			}
			fmt.Fprintln(w, " (replicas moved onto a broker go to the directory the broker chooses)")
		}
	}

	fmt.Fprintln(w)
	reorders := 0
	for _, c := range p.Changes {
		if len(c.Added) == 0 {
			reorders++
		}
	}
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "Nothing to move: the cluster meets every goal it can.")
		return
	}
	fmt.Fprintf(w, "%d partition(s) change: %d replica(s) to copy, %s to move (the replica-count goal alone needs at least %s); %d only change their preferred leader.\n",
		len(p.Changes), p.Moves(), human(float64(p.BytesToMove)), human(float64(p.LowerBound)), reorders)
	tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTITION\tREPLICAS\tSIZE")
	for _, c := range p.Changes {
		fmt.Fprintf(tw, "%s\t%s -> %s\t%s\n", c.TP, ids(c.Before), ids(c.After), human(float64(c.Bytes)))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Current partition replica assignment\n%s\n\n", FormatJSON(p.Current()))
	fmt.Fprintf(w, "Proposed partition reassignment configuration\n%s\n", FormatJSON(p.Assignment()))
}

func goalState(g GoalResult, v float64) string {
	if v == 0 {
		return "met"
	}
	return "violated"
}

func notApplies(name string) string {
	switch name {
	case RackAware:
		return "(fewer than two racks)"
	case DiskCapacity:
		return "(volume sizes unknown)"
	case NetworkInDistribution, NetworkOutDistribution:
		return "(traffic not measured)"
	}
	return ""
}

func ids(rs []int32) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(int(r))
	}
	return strings.Join(s, ",")
}

// FormatJSON is Kafka's reassignment JSON for an assignment.
func FormatJSON(a map[topicpart.TP][]int32) string {
	out := map[reassign.TopicPartition][]int32{}
	for tp, r := range a {
		out[reassign.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}] = r
	}
	return reassign.FormatReassignment(out)
}
