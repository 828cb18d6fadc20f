package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/cliutil"
	"kafgo/reassign"
)

func init() { commandGroups = append(commandGroups, newReassignCommand) }

func newReassignCommand() *cobra.Command {
	var (
		bootstrap, commandConfig                string
		generate, execute, verify, cancel, list bool
		o                                       = reassign.DefaultOptions()
	)
	cmd := &cobra.Command{
		Use:   "reassign-partitions",
		Short: "Move partition replicas between brokers (kafka-reassign-partitions)",
		Long: `Propose, start, verify, cancel or list partition reassignments, with the
flags, JSON files and output of Kafka's kafka-reassign-partitions.sh.

Exactly one action is required:
  --generate  propose an assignment of the topics in --topics-to-move-json-file
              over --broker-list (Kafka's placement, rack-aware unless
              --disable-rack-aware); nothing is changed.
  --execute   start the moves in --reassignment-json-file; prints the current
              assignment first, to keep for a rollback.
  --verify    report each move of the file as completed or in progress; once
              none is, remove the replication throttles.
  --cancel    cancel the moves of the file that are still in progress, and
              remove the replication throttles.
  --list      list every move in progress.

--throttle N (bytes/s) limits the replication traffic of the moves (KIP-73):
it sets leader/follower.replication.throttled.replicas on the moved topics
and leader/follower.replication.throttled.rate on the brokers involved
before the moves start. Run --verify until it reports every move completed:
that is what removes the throttle. --execute --additional --throttle M with
the same file changes the rate of the running moves.

Moves between log directories are not implemented: log_dirs entries must be
"any" and --replica-alter-log-dirs-throttle is accepted only at -1.

Examples:
  kafgo reassign-partitions --bootstrap-server localhost:9092 --generate --topics-to-move-json-file topics.json --broker-list 1,2,3
  kafgo reassign-partitions --bootstrap-server localhost:9092 --execute --reassignment-json-file plan.json
  kafgo reassign-partitions --bootstrap-server localhost:9092 --execute --reassignment-json-file plan.json --throttle 50000000
  kafgo reassign-partitions --bootstrap-server localhost:9092 --execute --reassignment-json-file plan.json --additional --throttle 100000000
  kafgo reassign-partitions --bootstrap-server localhost:9092 --verify --reassignment-json-file plan.json
  kafgo reassign-partitions --bootstrap-server localhost:9092 --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			action, err := reassign.ActionFromFlags(generate, execute, verify, cancel, list)
			if err != nil {
				return err
			}
			var set []string
			cmd.Flags().Visit(func(f *pflag.Flag) { set = append(set, f.Name) })
			if err := reassign.CheckFlags(action, set); err != nil {
				return err
			}
			o.Action = action
			if err := o.Validate(); err != nil {
				return err
			}
			c, err := cliutil.BootstrapConfig(bootstrap, commandConfig)
			if err != nil {
				return err
			}
			c.SetDefault("client.id", "reassign-partitions-tool")
			opts, err := cliutil.CommonOpts(c)
			if err != nil {
				return err
			}
			c.WarnUnused(cmd.ErrOrStderr())
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				return fmt.Errorf("reassign-partitions: creating client: %w", err)
			}
			defer cl.Close()
			return reassign.Run(cmd.Context(), cl, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, reassign.FlagBootstrapServer, "", "REQUIRED: the server(s) to use for bootstrapping.")
	f.StringVar(&commandConfig, reassign.FlagCommandConfig, "", "Property file containing configs to be passed to Admin Client.")
	f.BoolVar(&generate, "generate", false, "Generate a candidate partition reassignment configuration. Note that this only generates a candidate assignment, it does not execute it.")
	f.BoolVar(&execute, "execute", false, "Kick off the reassignment as specified by the --reassignment-json-file option.")
	f.BoolVar(&verify, "verify", false, "Verify if the reassignment completed as specified by the --reassignment-json-file option. If there is a throttle engaged for the replicas specified, and the rebalance has completed, the throttle will be removed")
	f.BoolVar(&cancel, "cancel", false, "Cancel an active reassignment.")
	f.BoolVar(&list, "list", false, "List all active partition reassignments.")
	f.StringVar(&o.ReassignmentJSONFile, reassign.FlagReassignmentJSON, "", `The JSON file with the partition reassignment configuration. The format to use is -
{"partitions":
	[{"topic": "foo",
	  "partition": 1,
	  "replicas": [1,2,3],
	  "log_dirs": ["dir1","dir2","dir3"] }],
"version":1
}
Note that "log_dirs" is optional. When it is specified, its length must equal the length of the replicas list. kafgo does not move replicas between log directories: every value must be "any".`)
	f.StringVar(&o.TopicsToMoveJSONFile, reassign.FlagTopicsToMoveJSON, "", `Generate a reassignment configuration to move the partitions of the specified topics to the list of brokers specified by the --broker-list option. The format to use is -
{"topics":
	[{"topic": "foo"},{"topic": "foo1"}],
"version":1
}`)
	f.StringVar(&o.BrokerList, reassign.FlagBrokerList, "", `The list of brokers to which the partitions need to be reassigned in the form "0,1,2". This is required if --topics-to-move-json-file is used to generate reassignment configuration`)
	f.BoolVar(&o.DisableRackAware, reassign.FlagDisableRackAware, false, "Disable rack aware replica assignment")
	f.BoolVar(&o.Additional, reassign.FlagAdditional, false, "Execute this reassignment in addition to any other ongoing ones. This option can also be used to change the throttle of an ongoing reassignment.")
	f.Int64Var(&o.Throttle, reassign.FlagThrottle, -1, "The movement of partitions between brokers will be throttled to this value (bytes/sec). This option can be included with --execute when a reassignment is started, and it can be altered by resubmitting the current reassignment along with the --additional flag. The throttle rate should be at least 1 KB/s.")
	f.Int64Var(&o.LogDirsThrottle, reassign.FlagLogDirsThrottle, -1, "The movement of replicas between log directories on the same broker will be throttled to this value (bytes/sec). Not implemented by kafgo: only -1 (no throttle) is accepted.")
	f.Int64Var(&o.TimeoutMs, reassign.FlagTimeout, 10000, "The maximum time in ms to wait for log directory replica assignment to begin. Accepted for compatibility: kafgo does not move replicas between log directories, so nothing waits.")
	f.BoolVar(&o.PreserveThrottles, reassign.FlagPreserveThrottles, false, "Do not modify broker or topic throttles.")
	return cmd
}
