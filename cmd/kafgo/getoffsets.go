package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/getoffsets"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newGetOffsetsCommand) }

func newGetOffsetsCommand() *cobra.Command {
	var (
		bootstrap, brokerList, commandConfig string
		o                                    getoffsets.Options
	)
	cmd := &cobra.Command{
		Use:   "get-offsets",
		Short: "Print partition offsets at a time (kafka-get-offsets)",
		Long: `An interactive shell for getting topic-partition offsets, with the flags
and output of Kafka's kafka-get-offsets.sh: one line "topic:partition:offset"
per partition.

--time is latest (-1, the default), earliest (-2), max-timestamp (-3),
earliest-local (-4), latest-tiered (-5) or a timestamp in ms: the first
offset whose record is at or after it (none, and no line, after the last
record).

Examples:
  kafgo get-offsets --bootstrap-server localhost:9092 --topic orders
  kafgo get-offsets --bootstrap-server localhost:9092 --topic 'orders.*' --partitions 0,1 --time earliest
  kafgo get-offsets --bootstrap-server localhost:9092 --topic-partitions 'orders:0-3,payments' --time 1700000000000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bootstrap == "" {
				bootstrap = brokerList
			}
			if bootstrap == "" {
				return errors.New(`Missing required argument "[bootstrap-server]"`)
			}
			f := cmd.Flags()
			o.TopicPartitionsSet = f.Changed("topic-partitions")
			o.TopicSet = f.Changed("topic")
			o.PartitionsSet = f.Changed("partitions")
			c, err := cliutil.BootstrapConfig(bootstrap, commandConfig)
			if err != nil {
				return err
			}
			c.Set("client.id", "GetOffsetShell")
			opts, err := cliutil.CommonOpts(c)
			if err != nil {
				return err
			}
			c.WarnUnused(cmd.ErrOrStderr())
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				return fmt.Errorf("get-offsets: creating client: %w", err)
			}
			defer cl.Close()
			return getoffsets.Run(cmd.Context(), cl, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.")
	f.StringVar(&brokerList, "broker-list", "", "DEPRECATED, use --bootstrap-server instead; ignored if --bootstrap-server is specified. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.")
	f.StringVar(&o.TopicPartitions, "topic-partitions", "", "Comma separated list of topic-partition patterns to get the offsets for, with the format of '([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?'. The first group is an optional regex for the topic name, if omitted, it matches any topic name. The section after ':' describes a 'partition' pattern, which can be: a number, a range in the format of 'NUMBER-NUMBER' (lower inclusive, upper exclusive), an inclusive lower bound in the format of 'NUMBER-', an exclusive upper bound in the format of '-NUMBER' or may be omitted to accept all partitions.")
	f.StringVar(&o.Topic, "topic", "", "The topic to get the offsets for. It also accepts a regular expression. If not present, all authorized topics are queried. Cannot be used if --topic-partitions is present.")
	f.StringVar(&o.Partitions, "partitions", "", "Comma separated list of partition ids to get the offsets for. If not present, all partitions of the authorized topics are queried. Cannot be used if --topic-partitions is present.")
	f.StringVar(&o.Time, "time", "latest", "timestamp of the offsets before that. [Note: No offset is returned, if the timestamp greater than recently committed record timestamp is given.] (<timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered)")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to Admin Client.")
	f.BoolVar(&o.ExcludeInternal, "exclude-internal-topics", false, "By default, internal topics are included. If specified, internal topics are excluded.")
	return cmd
}
