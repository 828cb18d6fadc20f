package main

import (
	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/leaderelection"
)

func init() { commandGroups = append(commandGroups, newLeaderElectionCommand) }

func newLeaderElectionCommand() *cobra.Command {
	var (
		bootstrap, adminConfig, electionType string
		o                                    leaderelection.Options
	)
	cmd := &cobra.Command{
		Use:   "leader-election",
		Short: "Elect preferred or unclean partition leaders (kafka-leader-election)",
		Long: `Elect a new leader for a set of topic partitions, with the flags and output
of Kafka's kafka-leader-election.sh.

--election-type preferred elects each partition's preferred replica (the
first of its replica list) where it is in sync and not already the leader;
unclean elects an out-of-sync replica where the partition has no live
leader. Exactly one of --topic with --partition, --all-topic-partitions or
--path-to-json-file names the partitions.

Examples:
  kafgo leader-election --bootstrap-server localhost:9092 --election-type preferred --all-topic-partitions
  kafgo leader-election --bootstrap-server localhost:9092 --election-type preferred --topic t --partition 0
  kafgo leader-election --bootstrap-server localhost:9092 --election-type unclean --path-to-json-file parts.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.BootstrapSet = f.Changed("bootstrap-server")
			o.ElectionTypeSet = f.Changed("election-type")
			o.TopicSet = f.Changed("topic")
			o.PartitionSet = f.Changed("partition")
			if o.ElectionTypeSet {
				t, err := leaderelection.ParseElectionType(electionType)
				if err != nil {
					return err
				}
				o.ElectionType = t
			}
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, adminConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return leaderelection.Run(cmd.Context(), cl, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "A hostname and port for the broker to connect to, in the form host:port. Multiple comma separated URLs can be given. REQUIRED.")
	f.StringVar(&adminConfig, "admin.config", "", "Configuration properties files to pass to the admin client")
	f.StringVar(&o.PathToJSONFile, "path-to-json-file", "", "The JSON file with the list  of partition for which leader elections should be performed. This is an example format. \n{\"partitions\":\n\t[{\"topic\": \"foo\", \"partition\": 1},\n\t {\"topic\": \"foobar\", \"partition\": 2}]\n}\nNot allowed if --all-topic-partitions or --topic flags are specified.")
	f.StringVar(&o.Topic, "topic", "", "Name of topic for which to perform an election. Not allowed if --path-to-json-file or --all-topic-partitions is specified.")
	f.Int32Var(&o.Partition, "partition", 0, "Partition id for which to perform an election. REQUIRED if --topic is specified.")
	f.BoolVar(&o.AllTopicPartitions, "all-topic-partitions", false, "Perform election on all of the eligible topic partitions based on the type of election (see the --election-type flag). Not allowed if --topic or --path-to-json-file is specified.")
	f.StringVar(&electionType, "election-type", "", `Type of election to attempt. Possible values are "preferred" for preferred leader election or "unclean" for unclean leader election. If preferred election is selection, the election is only performed if the current leader is not the preferred leader for the topic partition. If unclean election is selected, the election is only performed if there are no leader for the topic partition. REQUIRED.`)
	return cmd
}
