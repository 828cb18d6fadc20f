package main

import (
	"errors"

	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/topics"
)

func init() { commandGroups = append(commandGroups, newTopicsCommand) }

func newTopicsCommand() *cobra.Command {
	var (
		bootstrap, commandConfig              string
		list, describe, create, alter, delete bool
		o                                     topics.Options
	)
	cmd := &cobra.Command{
		Use:   "topics",
		Short: "Create, list, describe, alter or delete topics (kafka-topics)",
		Long: `Create, delete, describe, or change a topic, with the flags and output of
Kafka's kafka-topics.sh.

Exactly one action is required. --topic is a regular expression (matched
against the whole name) for every action but --create. The report flags
(--under-replicated-partitions, --unavailable-partitions,
--under-min-isr-partitions, --at-min-isr-partitions) make --describe print
only the matching partitions, without topic header lines;
--topics-with-overrides prints only the headers of topics with overrides.

Examples:
  kafgo topics --bootstrap-server localhost:9092 --create --topic t --partitions 3 --replication-factor 1
  kafgo topics --bootstrap-server localhost:9092 --create --topic t --replica-assignment 0:1,1:2,2:0 --config retention.ms=60000
  kafgo topics --bootstrap-server localhost:9092 --list --exclude-internal
  kafgo topics --bootstrap-server localhost:9092 --describe --topic 'orders.*'
  kafgo topics --bootstrap-server localhost:9092 --describe --under-min-isr-partitions
  kafgo topics --bootstrap-server localhost:9092 --alter --topic t --partitions 6
  kafgo topics --bootstrap-server localhost:9092 --delete --topic t --if-exists`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			action, err := topics.ActionFromFlags(list, describe, create, alter, delete)
			if err != nil {
				return err
			}
			o.Action = action
			if bootstrap == "" {
				return errors.New("--bootstrap-server must be specified")
			}
			fl := cmd.Flags()
			o.PartitionsSet = fl.Changed("partitions")
			o.RFSet = fl.Changed("replication-factor")
			o.AssignmentSet = fl.Changed("replica-assignment")
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return topics.Run(cmd.Context(), cl, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: The Kafka server to connect to.")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to Admin Client.")
	f.BoolVar(&list, "list", false, "List all available topics.")
	f.BoolVar(&create, "create", false, "Create a new topic.")
	f.BoolVar(&delete, "delete", false, "Delete a topic.")
	f.BoolVar(&alter, "alter", false, "Alter the number of partitions and replica assignment. (To alter topic configurations, the kafka-configs tool can be used.)")
	f.BoolVar(&describe, "describe", false, "List details for the given topics.")
	f.StringVar(&o.Topic, "topic", "", "The topic to create, alter, describe or delete. It also accepts a regular expression, except for --create option.")
	f.StringArrayVar(&o.Configs, "config", nil, "A topic configuration override for the topic being created, as name=value (repeatable).")
	f.Int32Var(&o.Partitions, "partitions", 0, "The number of partitions for the topic being created or altered. If not supplied with --create, the topic uses the cluster default. (WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected).")
	f.Int32Var(&o.ReplicationFactor, "replication-factor", 0, "The replication factor for each partition in the topic being created. If not supplied, the topic uses the cluster default.")
	f.StringVar(&o.ReplicaAssignment, "replica-assignment", "", "A list of manual partition-to-broker assignments for the topic being created or altered: broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ...")
	f.BoolVar(&o.UnderReplicated, "under-replicated-partitions", false, "If set when describing topics, only show under-replicated partitions.")
	f.BoolVar(&o.Unavailable, "unavailable-partitions", false, "If set when describing topics, only show partitions whose leader is not available.")
	f.BoolVar(&o.UnderMinISR, "under-min-isr-partitions", false, "If set when describing topics, only show partitions whose isr count is less than the configured minimum.")
	f.BoolVar(&o.AtMinISR, "at-min-isr-partitions", false, "If set when describing topics, only show partitions whose isr count is equal to the configured minimum.")
	f.BoolVar(&o.TopicsWithOverrides, "topics-with-overrides", false, "If set when describing topics, only show topics that have overridden configs.")
	f.BoolVar(&o.IfExists, "if-exists", false, "If set when altering or deleting or describing topics, the action will only execute if the topic exists.")
	f.BoolVar(&o.IfNotExists, "if-not-exists", false, "If set when creating topics, the action will only execute if the topic does not already exist.")
	f.BoolVar(&o.ExcludeInternal, "exclude-internal", false, "Exclude internal topics when running list or describe command. The internal topics will be listed by default.")
	return cmd
}
