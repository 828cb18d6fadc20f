package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kafgo/internal/topicname"
)

// The prompts behind the action keys. Each checks what it can before
// asking (a partition count that only grows, a group that must be empty),
// says in its question exactly what will change, and runs only after y.

func askCreateTopic(e *env) {
	fields := []field{
		{label: "Name"},
		{label: "Partitions", hint: "-1: the broker's num.partitions", edit: newLineEdit("-1")},
		{label: "Replication factor", hint: "-1: the broker's default.replication.factor", edit: newLineEdit("-1")},
	}
	e.ask(formPrompt("Create topic", fields, func(v []string) (string, action, error) {
		name := v[0]
		if err := topicname.Validate(name); err != nil {
			return "", action{}, err
		}
		if _, exists := e.s.Topic(name); exists {
			return "", action{}, fmt.Errorf("topic %s already exists", name)
		}
		parts, err := strconv.ParseInt(v[1], 10, 32)
		if err != nil || (parts < 1 && parts != -1) {
			return "", action{}, fmt.Errorf("partitions: want a positive number or -1, got %q", v[1])
		}
		rf, err := strconv.ParseInt(v[2], 10, 16)
		if err != nil || (rf < 1 && rf != -1) {
			return "", action{}, fmt.Errorf("replication factor: want a positive number or -1, got %q", v[2])
		}
		q := fmt.Sprintf("Create topic %s with %s partitions, replication factor %s?", name, orDefault(parts), orDefault(rf))
		return q, action{desc: "create topic " + name, run: func(ctx context.Context, a Actor) (string, error) {
			return "", a.CreateTopic(ctx, name, int32(parts), int16(rf))
		}}, nil
	}))
}

func orDefault(n int64) string {
	if n < 0 {
		return "default"
	}
	return strconv.FormatInt(n, 10)
}

func askDeleteTopic(e *env, name string) {
	t, _ := e.s.Topic(name)
	if t.Internal {
		e.flash = "topic " + name + " is internal: not deleted from here"
		return
	}
	e.ask(confirmPrompt("Delete topic", fmt.Sprintf("Delete topic %s and all of its %s?", name, plural(len(t.Partitions), "partition", "partitions")),
		action{desc: "delete topic " + name, run: func(ctx context.Context, a Actor) (string, error) {
			return "", a.DeleteTopic(ctx, name)
		}}))
}

func askAddPartitions(e *env, t Topic) {
	have := len(t.Partitions)
	fields := []field{{label: "New partition count", hint: fmt.Sprintf("now %d; it can only grow", have), edit: newLineEdit(strconv.Itoa(have + 1))}}
	e.ask(formPrompt("Add partitions to "+t.Name, fields, func(v []string) (string, action, error) {
		n, err := strconv.Atoi(v[0])
		if err != nil || n <= have {
			return "", action{}, fmt.Errorf("want a count above %d, got %q", have, v[0])
		}
		q := fmt.Sprintf("Raise %s from %d to %d partitions? Keyed records may then map to other partitions.", t.Name, have, n)
		return q, action{desc: fmt.Sprintf("add partitions to %s", t.Name), run: func(ctx context.Context, a Actor) (string, error) {
			return fmt.Sprintf("%d partitions", n), a.AddPartitions(ctx, t.Name, n)
		}}, nil
	}))
}

// askElect runs a preferred leader election: of the partitions given
// (nil partitions of a topic meaning all of its), or of every partition
// when parts is nil.
func askElect(e *env, parts map[string][]int32, what string) {
	sel := map[string][]int32{}
	n := 0
	for _, t := range e.s.Topics {
		ps, want := parts[t.Name]
		if parts != nil && !want {
			continue
		}
		for _, p := range t.Partitions {
			if (len(ps) == 0 || contains(ps, p.ID)) && p.NonPreferred() {
				sel[t.Name] = append(sel[t.Name], p.ID)
				n++
			}
		}
	}
	if n == 0 {
		e.flash = what + ": every partition is led by its preferred replica"
		return
	}
	question := fmt.Sprintf("Move the leadership of %s of %s back to the preferred replica?", plural(n, "partition", "partitions"), what)
	if name, preferred, ok := onePartition(e.s, parts); ok {
		question = fmt.Sprintf("Move the leadership of %s back to its preferred replica, broker %d?", name, preferred)
	}
	if parts == nil {
		question = fmt.Sprintf("Cluster-wide: move the leadership of %s back to the preferred replica?",
			plural(n, "partition", "partitions"))
	}
	e.ask(confirmPrompt("Preferred leader election", question,
		action{desc: "preferred leader election", run: func(ctx context.Context, a Actor) (string, error) {
			return a.ElectPreferred(ctx, sel)
		}}))
}

// onePartition is the partition parts names when it names exactly one
// ("payments-1"), with its preferred replica.
func onePartition(s *Snapshot, parts map[string][]int32) (name string, preferred int32, ok bool) {
	if len(parts) != 1 {
		return "", 0, false
	}
	for topic, ps := range parts {
		t, found := s.Topic(topic)
		if len(ps) != 1 || !found {
			return "", 0, false
		}
		for _, p := range t.Partitions {
			if p.ID == ps[0] && len(p.Replicas) > 0 {
				return tp{topic, p.ID}.String(), p.Replicas[0], true
			}
		}
	}
	return "", 0, false
}

// askResetOffsets moves a group's committed offsets, as
// kafka-consumer-groups --reset-offsets --all-topics does: only while the
// group has no members (Kafka refuses otherwise, since live members would
// commit over the new offsets).
func askResetOffsets(e *env, g Group) {
	if g.State != "Empty" && g.State != "Dead" {
		e.flash = fmt.Sprintf("group %s is %s: stop its %s first (offsets can only be reset while the group is empty)",
			g.ID, orDash(g.State), plural(len(g.Members), "member", "members"))
		return
	}
	fields := []field{{label: "Reset to", hint: "earliest, latest or an offset", edit: newLineEdit("earliest")}}
	e.ask(formPrompt("Reset offsets of "+g.ID, fields, func(v []string) (string, action, error) {
		to, err := parseResetTo(v[0])
		if err != nil {
			return "", action{}, err
		}
		q := fmt.Sprintf("Reset the offsets of group %s on its %s to %s?", g.ID, plural(len(g.Offsets), "partition", "partitions"), to)
		return q, action{desc: "reset offsets of " + g.ID, run: func(ctx context.Context, a Actor) (string, error) {
			n, err := a.ResetOffsets(ctx, g.ID, to)
			return plural(n, "partition", "partitions") + " moved to " + to.String(), err
		}}, nil
	}))
}

func parseResetTo(s string) (ResetTo, error) {
	switch strings.ToLower(s) {
	case "earliest":
		return ResetTo{Earliest: true}, nil
	case "latest":
		return ResetTo{Latest: true}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return ResetTo{}, fmt.Errorf("want earliest, latest or an offset, got %q", s)
	}
	return ResetTo{Offset: n}, nil
}

// askAlterConfig sets a config, or deletes its override when the value
// is left empty.
func askAlterConfig(e *env, r ConfigResource, c ConfigEntry, page int) {
	if c.ReadOnly {
		e.flash = readOnlyReason(c)
		return
	}
	value := c.Value
	if c.Sensitive {
		value = ""
	}
	fields := []field{{label: c.Name, hint: "empty: delete the override", edit: newLineEdit(value)}}
	e.ask(formPrompt("Alter config of "+r.String(), fields, func(v []string) (string, action, error) {
		if v[0] == "" {
			if !c.Dynamic() {
				return "", action{}, errors.New("no override to delete: enter a value")
			}
			return fmt.Sprintf("Delete the override of %s on %s (back to its default)?", c.Name, r), action{
				desc: "delete " + c.Name + " of " + r.String(), page: page,
				run: func(ctx context.Context, a Actor) (string, error) { return "", a.AlterConfig(ctx, r, c.Name, nil) },
			}, nil
		}
		val := v[0]
		return fmt.Sprintf("Set %s=%s on %s?", c.Name, val, r), action{
			desc: "set " + c.Name + " of " + r.String(), page: page,
			run: func(ctx context.Context, a Actor) (string, error) { return "", a.AlterConfig(ctx, r, c.Name, &val) },
		}, nil
	}))
}

// readOnlyReason says why a config cannot be altered at run time, by
// where its value comes from: the broker's file sets a static one, while a
// default is not in the file at all.
func readOnlyReason(c ConfigEntry) string {
	if c.Source == "STATIC_BROKER_CONFIG" {
		return c.Name + " is read-only: the broker's config file sets it (change it there and restart the broker)"
	}
	return c.Name + " is read-only: not a dynamic config (set it in the broker's config file and restart the broker)"
}
