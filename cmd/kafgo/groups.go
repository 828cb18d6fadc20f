package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kafgo/groups"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newGroupsCommand) }

// stateNoValue marks --state given without a value ("--state Stable"
// reaches pflag as "--state=Stable", see withOptionalValues).
const stateNoValue = "\x00"

func newGroupsCommand() *cobra.Command {
	var (
		bootstrap, commandConfig, state     string
		list, describe, del, reset, delOffs bool
		toOffset, shiftBy, timeoutMs        int64
		o                                   groups.Options
	)
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "List, describe, reset or delete consumer groups (kafka-consumer-groups)",
		Long: `List, describe, delete consumer groups and their offsets, and reset
offsets, with the flags and output of Kafka's kafka-consumer-groups.sh.

Resetting needs a scope (--group g | --all-groups, and --topic t[:0,1] |
--all-topics) and one specification (--to-earliest, --to-latest,
--to-current, --to-offset N, --shift-by ±N, --to-datetime
YYYY-MM-DDTHH:mm:SS.sss[zone], --by-duration PnDTnHnMnS). Without --execute
it only prints the plan (dry run). The group must be inactive.
--to-datetime without a zone is UTC, as in Kafka.

Examples:
  kafgo groups --bootstrap-server localhost:9092 --list --state Stable,Empty
  kafgo groups --bootstrap-server localhost:9092 --describe --group g
  kafgo groups --bootstrap-server localhost:9092 --describe --all-groups --members --verbose
  kafgo groups --bootstrap-server localhost:9092 --describe --group g --state
  kafgo groups --bootstrap-server localhost:9092 --reset-offsets --group g --topic t:0,1 --to-earliest --execute
  kafgo groups --bootstrap-server localhost:9092 --reset-offsets --group g --all-topics --by-duration PT1H
  kafgo groups --bootstrap-server localhost:9092 --delete --group g
  kafgo groups --bootstrap-server localhost:9092 --delete-offsets --group g --topic t`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return fmt.Errorf("unexpected argument %q", args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			action, err := groups.ActionFromFlags(list, describe, del, reset, delOffs)
			if err != nil {
				return err
			}
			o.Action = action
			if bootstrap == "" {
				return errors.New(`Missing required argument "[bootstrap-server]"`)
			}
			fl := cmd.Flags()
			if fl.Changed("state") {
				o.StateSet = true
				if state != stateNoValue && state != "" {
					if action != groups.ActionList {
						return errors.New("Option [state] takes a value only with [list]")
					}
					if o.States, err = groups.ParseStates(state); err != nil {
						return err
					}
				}
			}
			if fl.Changed("to-offset") {
				o.ToOffset = &toOffset
			}
			if fl.Changed("shift-by") {
				o.ShiftBy = &shiftBy
			}
			o.Timeout = msDuration(timeoutMs)
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return groups.Run(cmd.Context(), cl, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: The server(s) to connect to.")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to Admin Client and Consumer.")
	f.BoolVar(&list, "list", false, "List all consumer groups.")
	f.BoolVar(&describe, "describe", false, "Describe consumer group and list offset lag (number of messages not yet processed) related to given group.")
	f.BoolVar(&del, "delete", false, "Pass in groups to delete topic partition offsets and ownership information over the entire consumer group.")
	f.BoolVar(&reset, "reset-offsets", false, "Reset offsets of consumer group. Supports one consumer group at the time, and instances should be inactive.")
	f.BoolVar(&delOffs, "delete-offsets", false, "Delete offsets of consumer group. Supports one consumer group at the time, and multiple topics.")
	f.StringArrayVar(&o.Groups, "group", nil, "The consumer group we wish to act on (repeatable).")
	f.BoolVar(&o.AllGroups, "all-groups", false, "Apply to all consumer groups.")
	f.StringVar(&state, "state", "", "When specified with '--describe', includes the state of the group. When specified with '--list', it displays the state of all groups. It can also be used to list groups with specific states, e.g. --state Stable,Empty.")
	f.Lookup("state").NoOptDefVal = stateNoValue
	f.BoolVar(&o.Members, "members", false, "Describe members of the group. This option may be used with '--describe' and '--bootstrap-server' options only.")
	f.BoolVar(&o.Verbose, "verbose", false, "Provide additional information, if any, when describing the group (the assignment with --members).")
	f.BoolVar(&o.Offsets, "offsets", false, "Describe the group and list all topic partitions in the group along with their offset lag. This is the default sub-action.")
	f.BoolVar(&o.Health, "health", false, "kafgo only: with --describe, add the consumer health the group's coordinator keeps (status by Burrow's rules, time lag, lag trend, time to catch up) after Kafka's columns; read from the coordinator's admin endpoint.")
	f.StringArrayVar(&o.Topics, "topic", nil, "The topic whose consumer group information should be deleted or topic whose should be included in the reset offset process; partitions may follow as topic:0,1,2 (repeatable).")
	f.BoolVar(&o.AllTopics, "all-topics", false, "Consider all topics assigned to a group in the 'reset-offsets' process.")
	f.BoolVar(&o.ToEarliest, "to-earliest", false, "Reset offsets to earliest offset.")
	f.BoolVar(&o.ToLatest, "to-latest", false, "Reset offsets to latest offset.")
	f.BoolVar(&o.ToCurrent, "to-current", false, "Reset offsets to current offset.")
	f.Int64Var(&toOffset, "to-offset", 0, "Reset offsets to a specific offset.")
	f.Int64Var(&shiftBy, "shift-by", 0, "Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.")
	f.StringVar(&o.ToDatetime, "to-datetime", "", "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDTHH:mm:SS.sss'")
	f.StringVar(&o.ByDuration, "by-duration", "", "Reset offsets to offset by duration from current timestamp. Format: 'PnDTnHnMnS'")
	f.BoolVar(&o.DryRun, "dry-run", false, "Only show results without executing changes on Consumer Groups. Supported operations: reset-offsets.")
	f.BoolVar(&o.Execute, "execute", false, "Execute operation. Supported operations: reset-offsets.")
	f.Int64Var(&timeoutMs, "timeout", 5000, "The timeout that can be set for some use cases. For example, it can be used when describing the group to specify the maximum amount of time in milliseconds to wait before the group stabilizes.")
	return cmd
}
