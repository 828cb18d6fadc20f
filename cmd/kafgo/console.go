package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"kafgo/console"
	"kafgo/internal/cliutil"
)

func init() {
	commandGroups = append(commandGroups, newProduceCommand, newConsumeCommand)
}

// clientConfig layers a properties file, repeatable k=v flags and
// --bootstrap-server, in Kafka's order of precedence.
func clientConfig(bootstrap, file string, props []string) (*cliutil.Config, map[string]string, map[string]string, error) {
	fileProps := map[string]string{}
	if file != "" {
		m, err := cliutil.ReadPropertiesFile(file)
		if err != nil {
			return nil, nil, nil, err
		}
		fileProps = m
	}
	cliProps, err := cliutil.ParseKeyValues(props)
	if err != nil {
		return nil, nil, nil, err
	}
	c := cliutil.NewConfig()
	c.Merge(fileProps)
	c.Merge(cliProps)
	if bootstrap != "" {
		c.Set("bootstrap.servers", bootstrap)
	}
	if !c.Has("bootstrap.servers") {
		return nil, nil, nil, errors.New(`Missing required argument "[bootstrap-server]"`)
	}
	return c, cliProps, fileProps, nil
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newProduceCommand() *cobra.Command {
	var (
		bootstrap, topic, configFile, acks, codec string
		props, producerProps                      []string
		partition                                 int32
		batchSize, lingerMs, maxBlockMs           int64
		retries, retryBackoffMs, requestTimeoutMs int64
		maxMemory                                 int64
		sync                                      bool
	)
	cmd := &cobra.Command{
		Use:   "produce",
		Short: "Produce records from standard input (kafka-console-producer)",
		Long: `Read records from standard input, one per line, and produce them to a topic,
like Kafka's kafka-console-producer.sh.

Line format is set with --property (Kafka's LineMessageReader):
  parse.key=true            split each line into key and value at key.separator (default TAB)
  parse.headers=true        a headers field comes first, ended by headers.delimiter (default TAB);
                            headers are k:v pairs (headers.key.separator, default ':')
                            joined by headers.separator (default ',')
  ignore.error=true         send unparsable lines as a plain value instead of failing
  null.marker=<s>           a key, value or header value equal to <s> is sent as null
Separators accept the escapes \t, \n, \r and \\ (kafgo convenience).

Producer configs use the Java producer's names (acks, compression.type,
linger.ms, batch.size, buffer.memory, enable.idempotence,
max.in.flight.requests.per.connection, client.id (default
console-producer), request.timeout.ms, retries, delivery.timeout.ms,
max.request.size, max.block.ms) from
--producer.config, overridden by --producer-property, overridden by the
dedicated flags when given. Keyed records go to murmur2(key) % partitions,
as with the Java client.

The command exits non-zero if any record failed, after every record read
has been acknowledged or failed.

Examples:
  kafgo produce --bootstrap-server localhost:9092 --topic t < lines.txt
  kafgo produce --bootstrap-server localhost:9092 --topic t --property parse.key=true --property key.separator=:
  kafgo produce --bootstrap-server localhost:9092 --topic t --compression-codec zstd --request-required-acks 1
  kafgo produce --bootstrap-server localhost:9092 --topic t --partition 2 --sync`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if topic == "" {
				return errors.New(`Missing required argument "[topic]"`)
			}
			c, _, _, err := clientConfig(bootstrap, configFile, producerProps)
			if err != nil {
				return err
			}
			c.SetDefault("client.id", cliutil.ConsoleProducerClientID)
			fl := cmd.Flags()
			// The console producer's own defaults apply unless a config
			// sets the key; a flag given explicitly always wins.
			for _, d := range []struct {
				flag, key string
				val       func() string
			}{
				{"request-required-acks", "acks", func() string { return acks }},
				{"timeout", "linger.ms", func() string { return fmt.Sprint(lingerMs) }},
				{"request-timeout-ms", "request.timeout.ms", func() string { return fmt.Sprint(requestTimeoutMs) }},
				{"message-send-max-retries", "retries", func() string { return fmt.Sprint(retries) }},
				{"retry-backoff-ms", "retry.backoff.ms", func() string { return fmt.Sprint(retryBackoffMs) }},
				{"max-memory-bytes", "buffer.memory", func() string { return fmt.Sprint(maxMemory) }},
				{"max-block-ms", "max.block.ms", func() string { return fmt.Sprint(maxBlockMs) }},
			} {
				if fl.Changed(d.flag) {
					c.Set(d.key, d.val())
				} else {
					c.SetDefault(d.key, d.val())
				}
			}
			if fl.Changed("batch-size") {
				c.Set("batch.size", fmt.Sprint(batchSize))
			}
			if fl.Changed("compression-codec") {
				c.Set("compression.type", codec)
			}
			rprops, err := cliutil.ParseKeyValues(props)
			if err != nil {
				return err
			}
			rc, err := console.ParseReaderConfig(rprops)
			if err != nil {
				return err
			}
			o := console.ProducerOptions{
				Topic: topic, Partition: partition, PartitionSet: fl.Changed("partition"),
				Reader: rc, Sync: sync, Prompt: isTerminal(os.Stdin) && cmd.InOrStdin() == os.Stdin,
			}
			cl, set, err := console.NewProducerClient(c, o)
			if err != nil {
				return err
			}
			defer cl.Close()
			c.WarnUnused(cmd.ErrOrStderr())
			o.MaxBlock, o.DeliveryTimeout = set.MaxBlock, set.DeliveryTimeout
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			_, err = console.Produce(ctx, cl, o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED unless bootstrap.servers is in --producer.config: the server(s) to connect to, host:port[,host:port].")
	f.StringVar(&topic, "topic", "", "REQUIRED: the topic id to produce messages to.")
	f.Int32Var(&partition, "partition", 0, "Send every record to this partition (kafgo extension; Kafka's console producer has no such flag).")
	f.StringArrayVar(&props, "property", nil, "A mechanism to pass user-defined properties in the form key=value to the message reader (repeatable).")
	f.StringArrayVar(&producerProps, "producer-property", nil, "A mechanism to pass user-defined properties in the form key=value to the producer (repeatable).")
	f.StringVar(&configFile, "producer.config", "", "Producer config properties file. Note that [producer-property] takes precedence over this config.")
	f.StringVar(&acks, "request-required-acks", "-1", "The required acks of the producer requests: -1 (all), 0 or 1.")
	f.StringVar(&codec, "compression-codec", "none", "The compression codec: either 'none', 'gzip', 'snappy', 'lz4', or 'zstd'. If specified without value, then it defaults to 'gzip'.")
	f.Lookup("compression-codec").NoOptDefVal = "gzip"
	// No default here: batch.size from the configs applies unless the flag
	// is given.
	f.Int64Var(&batchSize, "batch-size", 0, "Largest batch in bytes (batch.size). Unset: batch.size from --producer.config or --producer-property, else 16384, the Java producer's default, as in Kafka's console producer. A batch never exceeds the topic's max.message.bytes; a larger record is sent alone.")
	f.Int64Var(&lingerMs, "timeout", 1000, "If set and the producer is running in asynchronous mode, this gives the maximum amount of time a message will queue awaiting sufficient batch size (linger.ms). The value is given in ms.")
	f.BoolVar(&sync, "sync", false, "If set message send requests to the brokers are synchronously, one at a time as they arrive.")
	f.Int64Var(&maxBlockMs, "max-block-ms", 60000, "The max time that the producer will block for during a send request.")
	f.Int64Var(&retries, "message-send-max-retries", 3, "The number of retries before the producer gives up and drops a message.")
	f.Int64Var(&retryBackoffMs, "retry-backoff-ms", 100, "Wait time before each retry.")
	f.Int64Var(&requestTimeoutMs, "request-timeout-ms", 1500, "The ack timeout of the producer requests.")
	f.Int64Var(&maxMemory, "max-memory-bytes", 32*1024*1024, "The total memory used by the producer to buffer records waiting to be sent to the server (buffer.memory).")
	return cmd
}

func newConsumeCommand() *cobra.Command {
	var (
		bootstrap, configFile, group, offset, isolation string
		props, consumerProps                            []string
		o                                               console.ConsumerOptions
		timeoutMs                                       int64
	)
	cmd := &cobra.Command{
		Use:   "consume",
		Short: "Print records from topics (kafka-console-consumer)",
		Long: `Consume records and print them to standard output, like Kafka's
kafka-console-consumer.sh.

Without --group the tool reads without a consumer group (kafgo does not
create Kafka's throwaway console-consumer-NNNNN groups). With --group it
joins the group and commits its position, past the records it printed and
the transaction markers that follow them, also when interrupted
(SIGINT/SIGTERM), then leaves the group.

Output properties (--property, Kafka's DefaultMessageFormatter):
  print.timestamp print.partition print.offset print.headers print.key print.value
  key.separator (TAB) line.separator (newline) headers.separator (,) null.literal (null)
Fields are printed in the order CreateTime:<ts> Partition:<p> Offset:<o>
<headers> <key> <value>. "Processed a total of N messages" goes to stderr.

--from-timestamp is a kafgo extension: start at the first record stamped at
or after the given epoch milliseconds (partitions with committed offsets in
the group resume there instead).

Consumer configs use the Java consumer's names (group.id,
auto.offset.reset, enable.auto.commit, auto.commit.interval.ms,
session.timeout.ms, heartbeat.interval.ms, max.poll.records,
fetch.min.bytes, fetch.max.wait.ms, max.partition.fetch.bytes,
partition.assignment.strategy, client.id (default console-consumer),
group.instance.id).

Examples:
  kafgo consume --bootstrap-server localhost:9092 --topic t --from-beginning
  kafgo consume --bootstrap-server localhost:9092 --topic t --partition 0 --offset 42 --max-messages 10
  kafgo consume --bootstrap-server localhost:9092 --include 'orders\..*' --group g --timeout-ms 5000
  kafgo consume --bootstrap-server localhost:9092 --topic t --from-beginning --property print.key=true --property print.offset=true`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			o.PartitionSet = fl.Changed("partition")
			o.FromTimestampSet = fl.Changed("from-timestamp")
			if fl.Changed("offset") {
				o.Offset = offset
			}
			o.Timeout = msDuration(timeoutMs)
			if err := o.Validate(); err != nil {
				return err
			}
			c, cliProps, fileProps, err := clientConfig(bootstrap, configFile, consumerProps)
			if err != nil {
				return err
			}
			g, err := console.ResolveGroup(group, cliProps, fileProps)
			if err != nil {
				return err
			}
			if g != "" {
				c.Set("group.id", g)
			}
			c.SetDefault("client.id", cliutil.ConsoleConsumerClientID)
			if fl.Changed("isolation-level") {
				c.Set("isolation.level", isolation)
			}
			fprops, err := cliutil.ParseKeyValues(props)
			if err != nil {
				return err
			}
			if o.Formatter, err = console.ParseFormatterConfig(fprops); err != nil {
				return err
			}
			cl, set, err := console.NewConsumerClient(c, o)
			if err != nil {
				return err
			}
			defer cl.Close()
			c.WarnUnused(cmd.ErrOrStderr())
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			n, err := console.Consume(ctx, cl, o, set, cmd.OutOrStdout(), cmd.ErrOrStderr())
			fmt.Fprintf(cmd.ErrOrStderr(), "Processed a total of %d messages\n", n)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED unless bootstrap.servers is in --consumer.config: the server(s) to connect to.")
	f.StringVar(&o.Topic, "topic", "", "The topic to consume on.")
	f.StringVar(&o.Include, "include", "", "Regular expression specifying list of topics to include for consumption.")
	f.Int32Var(&o.Partition, "partition", 0, "The partition to consume from. Consumption starts from the end of the partition unless '--offset' is specified.")
	f.StringVar(&offset, "offset", "latest", "The offset to consume from (a non-negative number), or 'earliest' which means from beginning, or 'latest' which means from end.")
	f.BoolVar(&o.FromBeginning, "from-beginning", false, "If the consumer does not already have an established offset to consume from, start with the earliest message present in the log rather than the latest message.")
	f.Int64Var(&o.FromTimestamp, "from-timestamp", 0, "Start at the first record with a timestamp at or after this epoch-millisecond time (kafgo extension).")
	f.StringVar(&group, "group", "", "The consumer group id of the consumer.")
	f.IntVar(&o.MaxMessages, "max-messages", 0, "The maximum number of messages to consume before exiting. If not set, consumption is continual.")
	f.Int64Var(&timeoutMs, "timeout-ms", 0, "If specified, exit if no message is available for consumption for the specified interval.")
	f.StringVar(&isolation, "isolation-level", "read_uncommitted", "Set to read_committed in order to filter out transactional messages which are not committed. Set to read_uncommitted to read all messages.")
	f.StringArrayVar(&props, "property", nil, "The properties to initialize the message formatter, as key=value (repeatable).")
	f.StringArrayVar(&consumerProps, "consumer-property", nil, "A mechanism to pass user-defined properties in the form key=value to the consumer (repeatable).")
	f.StringVar(&configFile, "consumer.config", "", "Consumer config properties file. Note that [consumer-property] takes precedence over this config.")
	return cmd
}
