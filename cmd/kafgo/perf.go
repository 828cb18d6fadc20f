package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/perf"
)

func init() { commandGroups = append(commandGroups, newPerfCommand) }

func newPerfCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "perf",
		Short: "Producer and consumer benchmarks (kafka-*-perf-test)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newPerfProduceCommand(), newPerfConsumeCommand())
	return cmd
}

func newPerfProduceCommand() *cobra.Command {
	var (
		o                     perf.ProducerOptions
		bootstrap, configFile string
		props                 []string
		format                string
	)
	cmd := &cobra.Command{
		Use:   "produce",
		Short: "Producer benchmark (kafka-producer-perf-test)",
		Long: `Produce --num-records records as fast as --throughput allows and report
throughput and latency with the lines of Kafka's kafka-producer-perf-test.sh.

Latency is measured per record from the moment it is handed to the
producer to its acknowledgement; throughput from the first send to the
last acknowledgement. A window line is printed every 5 s, then the total
(and, with --warmup-records, a steady-state total). --format json prints
only the final figures as one JSON object. Producer configs use the Java
names (--producer-props k=v ..., --producer.config file); bootstrap.servers
may be given there instead of --bootstrap-server. The command exits 1 if
any record failed.

--transactional-id or --transaction-duration-ms (Kafka's flags) send every
record in a transaction, committed after --transaction-duration-ms (3000
by default) or, with --transaction-records, once it holds that many
records, whichever comes first.

Examples:
  kafgo perf produce --bootstrap-server localhost:9092 --topic t --num-records 100000 --record-size 100 --throughput -1
  kafgo perf produce --topic t --num-records 50000 --payload-monotonic --throughput 5000 --producer-props bootstrap.servers=localhost:9092 acks=1 linger.ms=5
  kafgo perf produce --bootstrap-server localhost:9092 --topic t --num-records 1000 --record-size 512 --throughput -1 --format json
  kafgo perf produce --bootstrap-server localhost:9092 --topic t --num-records 100000 --record-size 100 --throughput -1 --transactional-id perf-txn --transaction-records 1000`,
		// Kafka's --producer-props takes several k=v words; pflag takes one
		// value per flag, so the following words arrive as arguments.
		Args: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if !cmd.Flags().Changed("producer-props") || !strings.Contains(a, "=") {
					return fmt.Errorf("unexpected argument %q", a)
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if bootstrap == "" && len(props) == 0 && configFile == "" {
				return errors.New("Either --producer-props or --producer.config must be specified.")
			}
			c := cliutil.NewConfig()
			if err := c.LoadFile(configFile); err != nil {
				return err
			}
			kv, err := cliutil.ParseKeyValues(append(props, args...))
			if err != nil {
				return err
			}
			c.Merge(kv)
			if bootstrap != "" {
				c.Set("bootstrap.servers", bootstrap)
			}
			if o.JSON, err = jsonFormat(format); err != nil {
				return err
			}
			if cmd.Flags().Changed("transaction-duration-ms") && o.TransactionDurationMs <= 0 {
				return errors.New("--transaction-duration-ms should be greater than zero")
			}
			if cmd.Flags().Changed("transaction-records") && o.TransactionRecords <= 0 {
				return errors.New("--transaction-records should be greater than zero")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			_, err = perf.RunProducer(ctx, c, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Topic, "topic", "", "REQUIRED: produce messages to this topic.")
	f.Int64Var(&o.NumRecords, "num-records", 0, "REQUIRED: number of messages to produce.")
	f.IntVar(&o.RecordSize, "record-size", 0, "Message size in bytes. Note that you must provide exactly one of --record-size or --payload-file or --payload-monotonic.")
	f.StringVar(&o.PayloadFile, "payload-file", "", "File to read the message payloads from, split by --payload-delimiter; a random one is sent each time.")
	f.StringVar(&o.PayloadDelimiter, "payload-delimiter", "", `Delimiter used in the payload file; the escapes \n, \t and \r are understood. Unset: a newline, as in Kafka.`)
	f.BoolVar(&o.PayloadMonotonic, "payload-monotonic", false, "Payload is the record's index as a decimal string (1, 2, 3, ...).")
	f.Float64Var(&o.Throughput, "throughput", 0, "REQUIRED: throttle maximum message throughput to *approximately* THROUGHPUT messages/sec. Set this to -1 to disable throttling.")
	f.StringArrayVar(&props, "producer-props", nil, "Kafka producer related configuration properties like bootstrap.servers,client.id etc. (k=v, repeatable; several words may follow one flag)")
	f.StringVar(&configFile, "producer.config", "", "Producer config properties file.")
	f.StringVar(&bootstrap, "bootstrap-server", "", "The server(s) to connect to (overrides bootstrap.servers from the properties).")
	f.BoolVar(&o.PrintMetrics, "print-metrics", false, "Print out metrics at the end of the test.")
	f.Int64Var(&o.WarmupRecords, "warmup-records", 0, "The number of records to treat as warmup; they are left out of an additional steady-state summary line.")
	f.StringVar(&format, "format", "text", "Output format: text (Kafka's lines) or json (final figures only).")
	f.StringVar(&o.TransactionalID, "transactional-id", "", "The transactional id to use; sends every record in a transaction. (default: "+perf.DefaultTransactionalID+" when transactions are on)")
	f.Int64Var(&o.TransactionDurationMs, "transaction-duration-ms", 0, fmt.Sprintf("The max age of each transaction: commitTransaction is called after this time has elapsed. Turns transactions on. (default: %d when transactions are on, unless only --transaction-records is given)", perf.DefaultTransactionDurationMs))
	f.Int64Var(&o.TransactionRecords, "transaction-records", 0, "Commit each transaction once it holds this many records (kafgo's; with --transaction-duration-ms, whichever comes first). Turns transactions on.")
	return cmd
}

func jsonFormat(f string) (bool, error) {
	switch f {
	case "text", "":
		return false, nil
	case "json":
		return true, nil
	}
	return false, fmt.Errorf("unknown --format %q: use text or json", f)
}

func newPerfConsumeCommand() *cobra.Command {
	var (
		o                               perf.ConsumerOptions
		bootstrap, configFile, group    string
		format                          string
		fetchSize, socketBuffer         int64
		timeoutMs, reportMs, numRecords int64
		fromLatest                      bool
	)
	cmd := &cobra.Command{
		Use:   "consume",
		Short: "Consumer benchmark (kafka-consumer-perf-test)",
		Long: `Consume --messages records in a consumer group and report throughput with
the header and comma-separated line of Kafka's kafka-consumer-perf-test.sh
(MB = 1024*1024 bytes of keys plus values). With --show-detailed-stats a
line is printed every --reporting-interval instead of the summary.
--format json prints the summary as one JSON object.

Examples:
  kafgo perf consume --bootstrap-server localhost:9092 --topic t --messages 100000
  kafgo perf consume --bootstrap-server localhost:9092 --include 'bench.*' --messages 1000000 --show-detailed-stats --reporting-interval 1000
  kafgo perf consume --bootstrap-server localhost:9092 --topic t --num-records 5000 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := cliutil.NewConfig()
			if err := c.LoadFile(configFile); err != nil {
				return err
			}
			if bootstrap != "" {
				c.Set("bootstrap.servers", bootstrap)
			}
			if !c.Has("bootstrap.servers") {
				return errors.New(`Missing required argument "[bootstrap-server]"`)
			}
			if cmd.Flags().Changed("num-records") {
				o.Messages = numRecords
			}
			perf.PrepareConsumerConfig(c, group, fetchSize, fromLatest)
			if cmd.Flags().Changed("socket-buffer-size") {
				c.Set("receive.buffer.bytes", fmt.Sprint(socketBuffer))
			}
			o.Timeout, o.ReportingInterval = msDuration(timeoutMs), msDuration(reportMs)
			var err error
			if o.JSON, err = jsonFormat(format); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			_, err = perf.RunConsumer(ctx, c, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED unless bootstrap.servers is in --consumer.config: the server(s) to connect to.")
	f.StringVar(&o.Topic, "topic", "", "The topic to consume from.")
	f.StringVar(&o.Include, "include", "", "Regular expression specifying list of topics to include for consumption.")
	f.Int64Var(&o.Messages, "messages", 0, "REQUIRED: The number of messages to consume.")
	f.Int64Var(&numRecords, "num-records", 0, "Alias of --messages (Kafka 4.x).")
	f.StringVar(&group, "group", "", "The group id to consume on (default perf-consumer-<random>).")
	f.Int64Var(&fetchSize, "fetch-size", 1048576, "The amount of data to fetch in a single request (max.partition.fetch.bytes).")
	f.BoolVar(&fromLatest, "from-latest", false, "If the consumer does not already have an established offset to consume from, start with the latest message present in the log rather than the earliest message.")
	f.Int64Var(&socketBuffer, "socket-buffer-size", 2097152, "The size of the tcp RECV size (accepted for compatibility).")
	f.StringVar(&configFile, "consumer.config", "", "Consumer config properties file.")
	f.BoolVar(&o.PrintMetrics, "print-metrics", false, "Print out the metrics.")
	f.BoolVar(&o.ShowDetailedStats, "show-detailed-stats", false, "If set, stats are reported for each reporting interval as configured by reporting-interval")
	f.Int64Var(&timeoutMs, "timeout", 10000, "The maximum allowed time in milliseconds between returned records.")
	f.Int64Var(&reportMs, "reporting-interval", 5000, "Interval in milliseconds at which to print progress info.")
	f.StringVar(&o.DateFormat, "date-format", perf.DefaultDateFormat, "The date format to use for formatting the time field. See java.text.SimpleDateFormat for options.")
	f.BoolVar(&o.HideHeader, "hide-header", false, "If set, skips printing the header for the stats")
	f.StringVar(&format, "format", "text", "Output format: text (Kafka's lines) or json.")
	return cmd
}
