package main

import (
	"errors"

	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/transactions"
)

func init() { commandGroups = append(commandGroups, newTransactionsCommand) }

// newTransactionsCommand is kafka-transactions.sh: the global flags on the
// parent, one subcommand per Kafka command.
func newTransactionsCommand() *cobra.Command {
	var bootstrap, commandConfig string
	cmd := &cobra.Command{
		Use:   "transactions",
		Short: "Analyze transactions and recover from hanging ones (kafka-transactions)",
		Long: `This tool is used to analyze the transactional state of producers in the
cluster. It can be used to detect and recover from hanging transactions.
Commands and output are those of Kafka's kafka-transactions.sh.

Examples:
  kafgo transactions --bootstrap-server localhost:9092 list
  kafgo transactions --bootstrap-server localhost:9092 describe --transactional-id my-app
  kafgo transactions --bootstrap-server localhost:9092 describe-producers --topic orders --partition 0
  kafgo transactions --bootstrap-server localhost:9092 find-hanging --broker-id 1
  kafgo transactions --bootstrap-server localhost:9092 abort --topic orders --partition 0 --start-offset 42`,
		Args: cobra.NoArgs,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&bootstrap, "bootstrap-server", "", "hostname and port for the broker to connect to, in the form `host:port`  (multiple comma-separated entries can be given)")
	pf.StringVar(&commandConfig, "command-config", "", "property file containing configs to be passed to admin client")

	run := func(cmd *cobra.Command, o transactions.Options) error {
		if bootstrap == "" {
			return errors.New("argument --bootstrap-server is required")
		}
		if err := o.Validate(); err != nil {
			return err
		}
		cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer cl.Close()
		return transactions.Run(cmd.Context(), cl, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	sub := func(name, short string, flags func(*cobra.Command, *transactions.Options) func()) *cobra.Command {
		o := transactions.Options{Command: name}
		c := &cobra.Command{Use: name, Short: short, Args: cobra.NoArgs}
		finish := flags(c, &o)
		c.RunE = func(cmd *cobra.Command, _ []string) error {
			finish()
			return run(cmd, o)
		}
		return c
	}
	// optional binds a flag whose absence matters (Java's null Integer).
	optional32 := func(c *cobra.Command, dst **int32, name, usage string) func() {
		var v int32
		c.Flags().Int32Var(&v, name, 0, usage)
		return func() {
			if c.Flags().Changed(name) {
				*dst = &v
			}
		}
	}
	cmd.AddCommand(
		sub(transactions.CommandList, "list transactions", func(*cobra.Command, *transactions.Options) func() { return func() {} }),
		sub(transactions.CommandDescribe, "describe the state of an active transactional-id", func(c *cobra.Command, o *transactions.Options) func() {
			c.Flags().StringVar(&o.TransactionalID, "transactional-id", "", "transactional id")
			return func() {}
		}),
		sub(transactions.CommandDescribeProducers, "describe the states of active producers for a topic partition", func(c *cobra.Command, o *transactions.Options) func() {
			c.Flags().StringVar(&o.Topic, "topic", "", "topic name")
			p := optional32(c, &o.Partition, "partition", "partition number")
			b := optional32(c, &o.BrokerID, "broker-id", "optional broker id to describe the producer state on a specific replica")
			return func() { p(); b() }
		}),
		sub(transactions.CommandAbort, "abort a hanging transaction (requires administrative privileges)", func(c *cobra.Command, o *transactions.Options) func() {
			var start, pid int64
			var epoch int16
			f := c.Flags()
			f.StringVar(&o.Topic, "topic", "", "topic name")
			p := optional32(c, &o.Partition, "partition", "partition number")
			f.Int64Var(&start, "start-offset", 0, "start offset of the transaction to abort (brokers on versions 3.0 and above)")
			f.Int64Var(&pid, "producer-id", 0, "producer id (brokers on versions older than 3.0)")
			f.Int16Var(&epoch, "producer-epoch", 0, "producer epoch (brokers on versions older than 3.0)")
			ce := optional32(c, &o.CoordinatorEpoch, "coordinator-epoch", "coordinator epoch (brokers on versions older than 3.0)")
			return func() {
				p()
				ce()
				if f.Changed("start-offset") {
					o.StartOffset = &start
				}
				if f.Changed("producer-id") {
					o.ProducerID = &pid
				}
				if f.Changed("producer-epoch") {
					o.ProducerEpoch = &epoch
				}
			}
		}),
		sub(transactions.CommandFindHanging, "find hanging transactions", func(c *cobra.Command, o *transactions.Options) func() {
			f := c.Flags()
			b := optional32(c, &o.BrokerID, "broker-id", "broker id to search for hanging transactions")
			f.IntVar(&o.MaxTransactionTimeout, "max-transaction-timeout", 15, "maximum transaction timeout in minutes to limit the scope of the search (15 minutes by default)")
			f.StringVar(&o.Topic, "topic", "", "topic name to limit search to (required if --partition is specified)")
			p := optional32(c, &o.Partition, "partition", "partition number")
			return func() { b(); p() }
		}),
	)
	return cmd
}
