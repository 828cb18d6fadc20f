package topics

import (
	"errors"
	"fmt"
)

// Action is the one operation a topics invocation performs.
type Action int

// The actions, in the order Kafka's usage message names them.
const (
	ActionNone Action = iota
	ActionList
	ActionDescribe
	ActionCreate
	ActionAlter
	ActionDelete
)

// Options are the parsed flags of one invocation. Fields mirror the
// kafka-topics.sh flags; *Set fields record whether a flag was given at all,
// since "not given" means "broker default" for the counts.
type Options struct {
	Action Action

	Topic             string
	Partitions        int32
	PartitionsSet     bool
	ReplicationFactor int32
	RFSet             bool
	ReplicaAssignment string
	AssignmentSet     bool
	Configs           []string

	IfExists        bool
	IfNotExists     bool
	ExcludeInternal bool

	UnderReplicated     bool
	Unavailable         bool
	UnderMinISR         bool
	AtMinISR            bool
	TopicsWithOverrides bool
}

// ErrActionCount is Kafka's message when zero or several actions are given.
var ErrActionCount = errors.New("Command must include exactly one action: --list, --describe, --create, --alter or --delete")

// ActionFromFlags picks the action from the five boolean flags.
func ActionFromFlags(list, describe, create, alter, del bool) (Action, error) {
	var a Action
	n := 0
	for _, f := range []struct {
		on bool
		a  Action
	}{{list, ActionList}, {describe, ActionDescribe}, {create, ActionCreate}, {alter, ActionAlter}, {del, ActionDelete}} {
		if f.on {
			a = f.a
			n++
		}
	}
	if n != 1 {
		return ActionNone, ErrActionCount
	}
	return a, nil
}

func (a Action) flag() string {
	switch a {
	case ActionList:
		return "list"
	case ActionDescribe:
		return "describe"
	case ActionCreate:
		return "create"
	case ActionAlter:
		return "alter"
	case ActionDelete:
		return "delete"
	}
	return "none"
}

// invalidWith words misuse the way Kafka's CommandLineUtils.checkInvalidArgs
// does, naming both options in joptsimple's "[name]" form.
func invalidWith(used, with string) error {
	return fmt.Errorf("Option \"[%s]\" can't be used with option \"[%s]\"", used, with)
}

func missing(name string) error {
	return fmt.Errorf("Missing required argument \"[%s]\"", name)
}

// Validate applies TopicCommand's argument checks: which options go with
// which action, and which exclude each other. Range checks on the values
// happen at run time, as in Kafka, so they are reported as command errors.
func (o *Options) Validate() error {
	if o.Action == ActionNone {
		return ErrActionCount
	}
	act := o.Action.flag()
	switch o.Action {
	case ActionCreate, ActionAlter, ActionDelete:
		if o.Topic == "" {
			return missing("topic")
		}
	}
	if o.Action == ActionAlter && !o.PartitionsSet {
		return missing("partitions")
	}
	if len(o.Configs) > 0 && o.Action != ActionCreate {
		return invalidWith("config", act)
	}
	if o.PartitionsSet && o.Action != ActionCreate && o.Action != ActionAlter {
		return invalidWith("partitions", act)
	}
	if o.RFSet && o.Action != ActionCreate {
		return invalidWith("replication-factor", act)
	}
	if o.AssignmentSet {
		if o.Action != ActionCreate && o.Action != ActionAlter {
			return invalidWith("replica-assignment", act)
		}
		if o.Action == ActionCreate && o.PartitionsSet {
			return invalidWith("replica-assignment", "partitions")
		}
		if o.Action == ActionCreate && o.RFSet {
			return invalidWith("replica-assignment", "replication-factor")
		}
	}
	if o.IfExists && o.Action != ActionAlter && o.Action != ActionDelete && o.Action != ActionDescribe {
		return invalidWith("if-exists", act)
	}
	if o.IfNotExists && o.Action != ActionCreate {
		return invalidWith("if-not-exists", act)
	}
	if o.ExcludeInternal && o.Action != ActionList && o.Action != ActionDescribe {
		return invalidWith("exclude-internal", act)
	}
	reports := []struct {
		on   bool
		name string
	}{
		{o.UnderReplicated, "under-replicated-partitions"},
		{o.Unavailable, "unavailable-partitions"},
		{o.UnderMinISR, "under-min-isr-partitions"},
		{o.AtMinISR, "at-min-isr-partitions"},
		{o.TopicsWithOverrides, "topics-with-overrides"},
	}
	first := ""
	for _, r := range reports {
		if !r.on {
			continue
		}
		if o.Action != ActionDescribe {
			return invalidWith(r.name, act)
		}
		if first != "" {
			return invalidWith(first, r.name)
		}
		first = r.name
	}
	return nil
}

// reporting reports whether a partition-filtering flag is set; with one,
// topic header lines are not printed.
func (o *Options) reporting() bool {
	return o.UnderReplicated || o.Unavailable || o.UnderMinISR || o.AtMinISR
}
