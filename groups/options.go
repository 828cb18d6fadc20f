package groups

import (
	"errors"
	"fmt"
	"time"
)

// Action is the operation of one invocation.
type Action int

// The actions.
const (
	ActionNone Action = iota
	ActionList
	ActionDescribe
	ActionDelete
	ActionResetOffsets
	ActionDeleteOffsets
)

// ErrActionCount is Kafka's message for zero or several actions.
var ErrActionCount = errors.New("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets")

// ActionFromFlags picks the one action set.
func ActionFromFlags(list, describe, del, reset, deleteOffsets bool) (Action, error) {
	var a Action
	n := 0
	for _, f := range []struct {
		on bool
		a  Action
	}{{list, ActionList}, {describe, ActionDescribe}, {del, ActionDelete}, {reset, ActionResetOffsets}, {deleteOffsets, ActionDeleteOffsets}} {
		if f.on {
			a, n = f.a, n+1
		}
	}
	if n != 1 {
		return ActionNone, ErrActionCount
	}
	return a, nil
}

// Options are the parsed flags.
type Options struct {
	Action Action

	Groups    []string
	AllGroups bool

	// States filters --list (empty with StateSet: show the STATE column
	// for every group); with --describe, StateSet selects the state view.
	States   []string
	StateSet bool

	Members bool // --describe --members
	Verbose bool // --members --verbose
	Offsets bool // --describe --offsets (the default view)
	// Health adds the coordinator's consumer health to the offsets view
	// (--describe --health, kafgo only).
	Health bool

	// Topics are --topic values: "t" or "t:0,1,2".
	Topics    []string
	AllTopics bool

	ToEarliest bool
	ToLatest   bool
	ToCurrent  bool
	ToOffset   *int64
	ShiftBy    *int64
	ToDatetime string
	ByDuration string

	DryRun  bool
	Execute bool

	// Timeout bounds each round of admin requests (--timeout, 5000 ms).
	Timeout time.Duration
	// Now is the clock for --by-duration; nil is time.Now.
	Now func() time.Time
}

func usage(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Validate applies ConsumerGroupCommand's argument checks.
func (o *Options) Validate() error {
	if o.Action == ActionNone {
		return ErrActionCount
	}
	groupScope := len(o.Groups) > 0 || o.AllGroups
	switch o.Action {
	case ActionDescribe:
		if !groupScope {
			return usage("Option [describe] takes one of these options: [group], [all-groups]")
		}
		n := 0
		for _, on := range []bool{o.Members, o.Offsets, o.StateSet} {
			if on {
				n++
			}
		}
		if n > 1 {
			return usage("Option [describe] takes at most one of these options: [members], [offsets], [state]")
		}
		if o.Verbose && !o.Members {
			return usage("Option [verbose] can be used only with option [describe] and [members]")
		}
		if o.Health && (o.Members || o.StateSet) {
			return usage("Option [health] can be used only with the offsets view of [describe]")
		}
	case ActionDelete:
		if !groupScope {
			return usage("Option [delete] takes one of these options: [group], [all-groups]")
		}
	case ActionDeleteOffsets:
		if len(o.Groups) != 1 || o.AllGroups {
			return usage("Option [delete-offsets] takes the [group] option with a single group")
		}
		if len(o.Topics) == 0 {
			return usage("Option [delete-offsets] takes the [topic] option")
		}
	case ActionResetOffsets:
		if !groupScope {
			return usage("Option [reset-offsets] takes one of these options: [group], [all-groups]")
		}
		if (len(o.Topics) > 0) == o.AllTopics {
			return usage("Option [reset-offsets] takes one of these options: [topic], [all-topics]")
		}
		if o.DryRun && o.Execute {
			return usage("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
		}
		n := 0
		for _, on := range []bool{o.ToEarliest, o.ToLatest, o.ToCurrent, o.ToOffset != nil, o.ShiftBy != nil, o.ToDatetime != "", o.ByDuration != ""} {
			if on {
				n++
			}
		}
		if n != 1 {
			return usage("Option [reset-offsets] takes exactly one of these options: [to-earliest], [to-latest], [to-current], [to-offset], [shift-by], [to-datetime], [by-duration]")
		}
	}
	if o.Health && o.Action != ActionDescribe {
		return usage("Option [health] can be used only with [describe]")
	}
	if o.Action != ActionResetOffsets && o.Action != ActionDeleteOffsets && (len(o.Topics) > 0 || o.AllTopics) {
		return usage("Option [topic] and [all-topics] can be used only with [reset-offsets] or [delete-offsets]")
	}
	if len(o.Groups) > 0 && o.AllGroups {
		return usage("Option [all-groups] can't be used with option [group]")
	}
	if o.Action == ActionList && (len(o.Groups) > 0 || o.AllGroups) {
		return usage("Option [list] can't be used with option [group] or [all-groups]")
	}
	return nil
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
