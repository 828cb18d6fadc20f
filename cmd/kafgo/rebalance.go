package main

import (
	"time"

	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/rebalance"
)

func init() { commandGroups = append(commandGroups, newRebalanceCommand) }

func newRebalanceCommand() *cobra.Command {
	var (
		bootstrap, commandConfig, add, remove string
		o                                     = rebalance.RunOptions{MetricsWindow: 10 * time.Second,
			Exec: rebalance.ExecOptions{Concurrency: 5, Throttle: 100 << 20, BatchTimeout: 30 * time.Minute}}
	)
	cmd := &cobra.Command{
		Use:   "rebalance",
		Short: "Plan and carry out a load-aware rebalance of partitions (Cruise Control's goals)",
		Long: `Plan a rebalance of the cluster's partitions with Cruise Control's goals, in
priority order (hard goals must be met; no goal may undo an earlier one):
rack awareness; replicas per broker under max.replicas.per.broker; disk
under 80% of each broker's volumes; replicas per broker within one of the
mean; disk, bytes in and bytes out per broker within 9% of the mean;
leaders per broker within one of the mean; every partition led by its
preferred replica. The plan moves as little data as it can and says how
close it is to the least the replica-count goal needs.

It prints each goal before and after, a table per broker (replicas,
leaders, disk, bytes in/out per second, before -> after), the moves, and
Kafka's reassignment JSON (current, for a rollback, and proposed;
--reassignment-json-file writes the proposed one). Traffic is measured for
--metrics-window from the brokers' admin endpoints (their admin.listener,
or --admin).

Without --execute (or with --dry-run) nothing changes. --execute moves
--concurrency partitions at a time under a replication throttle of
--throttle bytes/s (as kafka-reassign-partitions --execute --throttle
does), waits for each batch, verifies, removes the throttles, and elects
the preferred leaders.

--add-broker moves replicas only onto the given new brokers; --remove-broker
moves every replica off the given brokers (and nothing else).

Examples:
  kafgo rebalance --bootstrap-server localhost:9092
  kafgo rebalance --bootstrap-server localhost:9092 --add-broker 4 --dry-run
  kafgo rebalance --bootstrap-server localhost:9092 --add-broker 4 --execute --concurrency 10 --throttle 50000000
  kafgo rebalance --bootstrap-server localhost:9092 --remove-broker 2 --execute
  kafgo rebalance --bootstrap-server localhost:9092 --reassignment-json-file plan.json --metrics-window 0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Plan.AddBrokers, err = rebalance.ParseBrokerIDs("add-broker", add); err != nil {
				return err
			}
			if o.Plan.RemoveBrokers, err = rebalance.ParseBrokerIDs("remove-broker", remove); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient("kafgo-rebalance", bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return rebalance.Run(cmd.Context(), cl, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: the server(s) to use for bootstrapping.")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to Admin Client.")
	f.StringVar(&add, "add-broker", "", "Broker id(s), comma-separated, just added: replicas move only onto them.")
	f.StringVar(&remove, "remove-broker", "", "Broker id(s), comma-separated, to drain: every replica moves off them.")
	f.BoolVar(&o.DryRun, "dry-run", false, "Only print the plan (the default without --execute).")
	f.BoolVar(&o.Execute, "execute", false, "Carry the plan out.")
	f.IntVar(&o.Exec.Concurrency, "concurrency", o.Exec.Concurrency, "Partitions moved at a time.")
	f.Int64Var(&o.Exec.Throttle, "throttle", o.Exec.Throttle, "Replication throttle for the moves, in bytes/s (-1: none).")
	f.DurationVar(&o.Exec.BatchTimeout, "batch-timeout", o.Exec.BatchTimeout, "How long one batch may take.")
	f.StringVar(&o.JSONFile, "reassignment-json-file", "", "Write the proposed reassignment (Kafka's JSON) to this file.")
	f.StringVar(&o.Admin, "admin", "", "Admin endpoints of the brokers, id=host:port,... (default: each broker's admin.listener).")
	f.DurationVar(&o.MetricsWindow, "metrics-window", o.MetricsWindow, "How long to measure traffic for (0: not at all, and the network goals are left out).")
	f.StringVar(&o.ExcludeTopics, "exclude-topics", "", "Topics (a regular expression) to leave where they are.")
	return cmd
}
