package reassign

import (
	"errors"
	"fmt"
	"slices"
)

// Action is the one thing a run does.
type Action int

// The actions, in the order Kafka lists them.
const (
	ActionGenerate Action = iota + 1
	ActionExecute
	ActionVerify
	ActionCancel
	ActionList
)

var actionNames = map[Action]string{
	ActionGenerate: "generate", ActionExecute: "execute", ActionVerify: "verify",
	ActionCancel: "cancel", ActionList: "list",
}

func (a Action) String() string { return actionNames[a] }

var errOneAction = errors.New("Command must include exactly one action: --generate, --execute, --verify, --cancel, --list")

// ActionFromFlags picks the action from the five action flags.
func ActionFromFlags(generate, execute, verify, cancel, list bool) (Action, error) {
	var chosen []Action
	for _, c := range []struct {
		set bool
		a   Action
	}{{generate, ActionGenerate}, {execute, ActionExecute}, {verify, ActionVerify}, {cancel, ActionCancel}, {list, ActionList}} {
		if c.set {
			chosen = append(chosen, c.a)
		}
	}
	if len(chosen) != 1 {
		return 0, errOneAction
	}
	return chosen[0], nil
}

// Flag names, shared with the command so the checks below speak of the
// flags the user typed.
const (
	FlagBootstrapServer         = "bootstrap-server"
	FlagCommandConfig           = "command-config"
	FlagReassignmentJSON        = "reassignment-json-file"
	FlagTopicsToMoveJSON        = "topics-to-move-json-file"
	FlagBrokerList              = "broker-list"
	FlagDisableRackAware        = "disable-rack-aware"
	FlagAdditional              = "additional"
	FlagThrottle                = "throttle"
	FlagLogDirsThrottle         = "replica-alter-log-dirs-throttle"
	FlagTimeout                 = "timeout"
	FlagPreserveThrottles       = "preserve-throttles"
	defaultTimeoutMs            = 10000
	noThrottle            int64 = -1
)

// required and permitted are ReassignPartitionsCommand's tables of what
// each action needs and accepts besides the always-allowed connection flags.
var (
	required = map[Action][]string{
		ActionGenerate: {FlagTopicsToMoveJSON, FlagBrokerList},
		ActionExecute:  {FlagReassignmentJSON},
		ActionVerify:   {FlagReassignmentJSON},
		ActionCancel:   {FlagReassignmentJSON},
		ActionList:     nil,
	}
	permitted = map[Action][]string{
		ActionGenerate: {FlagDisableRackAware},
		ActionExecute:  {FlagAdditional, FlagThrottle, FlagLogDirsThrottle, FlagTimeout},
		ActionVerify:   {FlagPreserveThrottles},
		ActionCancel:   {FlagPreserveThrottles, FlagTimeout},
		ActionList:     nil,
	}
)

// Options are a run's parsed flags.
type Options struct {
	Action               Action
	ReassignmentJSONFile string
	TopicsToMoveJSONFile string
	BrokerList           string
	DisableRackAware     bool
	Additional           bool
	PreserveThrottles    bool
	Throttle             int64 // bytes/s between brokers; negative (-1) = none, as in Kafka
	LogDirsThrottle      int64 // bytes/s, -1 = none (log directory moves are not implemented)
	TimeoutMs            int64
}

// DefaultOptions has Kafka's defaults.
func DefaultOptions() Options {
	return Options{Throttle: noThrottle, LogDirsThrottle: noThrottle, TimeoutMs: defaultTimeoutMs}
}

// CheckFlags applies Kafka's usage rules to the flags given on the command
// line (set, by name, action flags included): --bootstrap-server present,
// the action's required flags present, no flag the action does not take.
func CheckFlags(a Action, set []string) error {
	has := func(name string) bool { return slices.Contains(set, name) }
	if !has(FlagBootstrapServer) {
		return errors.New("Please specify --bootstrap-server")
	}
	for _, name := range required[a] {
		if !has(name) {
			return fmt.Errorf("Missing required argument \"[%s]\"", name)
		}
	}
	names := slices.Clone(set)
	slices.Sort(names)
	for _, name := range names {
		switch {
		case name == a.String(), name == FlagBootstrapServer, name == FlagCommandConfig,
			slices.Contains(required[a], name), slices.Contains(permitted[a], name):
		default:
			return fmt.Errorf("Option \"[%s]\" can't be used with action \"[%s]\"", name, a)
		}
	}
	return nil
}

// Validate refuses what kafgo does not implement, before anything is sent.
func (o Options) Validate() error {
	if o.Action < ActionGenerate || o.Action > ActionList {
		return errOneAction
	}
	if o.LogDirsThrottle != noThrottle {
		return fmt.Errorf("--%s %d: kafgo does not implement moves between log directories; leave it at -1 (no throttle)", FlagLogDirsThrottle, o.LogDirsThrottle)
	}
	if o.TimeoutMs < 0 {
		return fmt.Errorf("--%s must not be negative", FlagTimeout)
	}
	return nil
}
