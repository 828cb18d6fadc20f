package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"kafgo/verifiable"
)

func init() {
	commandGroups = append(commandGroups, newVerifiableProducerCommand, newVerifiableConsumerCommand)
}

func newVerifiableProducerCommand() *cobra.Command {
	var (
		brokerList                string
		valuePrefix, repeatingKey int64
		o                         = verifiable.ProducerOptions{MaxMessages: -1, Throughput: -1, Acks: -1, CreateTime: -1}
	)
	cmd := &cobra.Command{
		Use:   "verifiable-producer",
		Short: "Produce increasing integers, printing every send as JSON (kafka-verifiable-producer)",
		Long: `This tool produces increasing integers to the specified topic and prints
JSON metadata to stdout on each "send" request, making externally visible
which messages have been acked and which have not: the flags and JSON
events of Kafka's kafka-verifiable-producer.sh. It stops after
--max-messages, or when interrupted, printing shutdown_complete and
tool_data.

Examples:
  kafgo verifiable-producer --bootstrap-server localhost:9092 --topic t --max-messages 1000
  kafgo verifiable-producer --bootstrap-server localhost:9092 --topic t --throughput 100 --acks -1 --value-prefix 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if o.Bootstrap == "" {
				o.Bootstrap = brokerList
			}
			switch {
			case o.Topic == "":
				return errors.New("argument --topic is required")
			case o.Bootstrap == "":
				return errors.New("one of the arguments --bootstrap-server --broker-list is required")
			}
			if f.Changed("value-prefix") {
				o.ValuePrefix = &valuePrefix
			}
			if f.Changed("repeating-keys") {
				if repeatingKey <= 0 {
					return errors.New("--repeating-keys must be a positive number of keys")
				}
				o.RepeatingKeys = &repeatingKey
			}
			pr, err := verifiable.NewProducer(o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			pr.Run(ctx)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Topic, "topic", "", "Produce messages to this topic.")
	f.StringVar(&o.Bootstrap, "bootstrap-server", "", "REQUIRED: The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	f.StringVar(&brokerList, "broker-list", "", "DEPRECATED, use --bootstrap-server instead; ignored if --bootstrap-server is specified.  Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	f.Int64Var(&o.MaxMessages, "max-messages", -1, "Produce this many messages. If -1, produce messages until the process is killed externally.")
	f.Int64Var(&o.Throughput, "throughput", -1, "If set >= 0, throttle maximum message throughput to *approximately* THROUGHPUT messages/sec.")
	f.IntVar(&o.Acks, "acks", -1, "Acks required on each produced message. See Kafka docs on acks for details.")
	f.StringVar(&o.ConfigFile, "producer.config", "", "Producer config properties file.")
	f.Int64Var(&o.CreateTime, "message-create-time", -1, "Send messages with creation time starting at the arguments value, in milliseconds since epoch")
	f.Int64Var(&valuePrefix, "value-prefix", 0, "If specified, each produced value will have this prefix with a dot separator")
	f.Int64Var(&repeatingKey, "repeating-keys", 0, "If specified, each produced record will have a key starting at 0 increment by 1 up to the number specified (exclusive), then the key is set to 0 again")
	return cmd
}

func newVerifiableConsumerCommand() *cobra.Command {
	var (
		brokerList string
		sessionMs  int64
		o          = verifiable.DefaultConsumerOptions()
	)
	cmd := &cobra.Command{
		Use:   "verifiable-consumer",
		Short: "Consume as a group member, printing every event as JSON (kafka-verifiable-consumer)",
		Long: `This tool consumes messages from a specific topic and emits consumer events
(e.g. group rebalances, received messages, and offsets committed) as JSON
objects to STDOUT: the flags and JSON events of Kafka's
kafka-verifiable-consumer.sh. It stops after --max-messages, or when
interrupted, leaving the group and printing shutdown_complete.

Examples:
  kafgo verifiable-consumer --bootstrap-server localhost:9092 --topic t --group-id g --max-messages 1000
  kafgo verifiable-consumer --bootstrap-server localhost:9092 --topic t --group-id g --verbose --enable-autocommit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Bootstrap == "" {
				o.Bootstrap = brokerList
			}
			switch {
			case o.Topic == "":
				return errors.New("argument --topic is required")
			case o.GroupID == "":
				return errors.New("argument --group-id is required")
			case o.Bootstrap == "":
				return errors.New("one of the arguments --bootstrap-server --broker-list is required")
			}
			o.SessionTimeout = time.Duration(sessionMs) * time.Millisecond
			vc, err := verifiable.NewConsumer(o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return vc.Run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Bootstrap, "bootstrap-server", "", "REQUIRED unless --broker-list(deprecated) is specified. The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	f.StringVar(&brokerList, "broker-list", "", "DEPRECATED, use --bootstrap-server instead; ignored if --bootstrap-server is specified.  Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...")
	f.StringVar(&o.Topic, "topic", "", "Consumes messages from this topic.")
	f.StringVar(&o.GroupProtocol, "group-protocol", "classic", "Group protocol (must be one of CLASSIC, CONSUMER)")
	f.StringVar(&o.GroupRemoteAssignor, "group-remote-assignor", "", "Group remote assignor; only used if the group protocol is CONSUMER")
	f.StringVar(&o.GroupID, "group-id", "", "The groupId shared among members of the consumer group")
	f.StringVar(&o.GroupInstanceID, "group-instance-id", "", "A unique identifier of the consumer instance")
	f.Int64Var(&o.MaxMessages, "max-messages", -1, "Consume this many messages. If -1 (the default), the consumer will consume until the process is killed externally")
	f.Int64Var(&sessionMs, "session-timeout", 30000, "Set the consumer's session timeout")
	f.BoolVar(&o.Verbose, "verbose", false, "Enable to log individual consumed records")
	f.BoolVar(&o.AutoCommit, "enable-autocommit", false, "Enable offset auto-commit on consumer")
	f.StringVar(&o.ResetPolicy, "reset-policy", "earliest", "Set reset policy (must be either 'earliest', 'latest', or 'none'")
	f.StringVar(&o.AssignmentStrategy, "assignment-strategy", o.AssignmentStrategy, "Set assignment strategy (e.g. org.apache.kafka.clients.consumer.RoundRobinAssignor); only used if the group protocol is CLASSIC")
	f.StringVar(&o.ConfigFile, "consumer.config", "", "Consumer config properties file (config options shared with command line parameters will be overridden).")
	return cmd
}
