package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"kafgo/configs"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newConfigsCommand) }

func newConfigsCommand() *cobra.Command {
	var (
		bootstrap, zookeeper, commandConfig, addFile, topic, broker string
		brokerDefaults                                              bool
		o                                                           configs.Options
		entities                                                    configs.EntityFlags
	)
	cmd := &cobra.Command{
		Use:   "configs",
		Short: "Describe or alter topic, broker, user and client configs (kafka-configs)",
		Long: `Describe or change the dynamic configs of topics and brokers, and the
client quotas of users and client ids, with the flags and output of
Kafka's kafka-configs.sh.

--describe prints the dynamic overrides of the entity (--all: every
config with its source and synonyms); without --entity-name it covers
every topic, or every broker and the cluster-wide broker default.
--alter sets (--add-config k1=v1,k2=[a,b] or --add-config-file) and
removes (--delete-config k1,k2) overrides. Broker configs that Kafka can
change at run time take effect on the brokers without a restart.

Users and clients (--entity-type users|clients, or --user, --client,
--user-defaults, --client-defaults; users and clients together for a
user's client id) take the quotas producer_byte_rate,
consumer_byte_rate and request_percentage, which every broker enforces
at once. Other entity types (ips, broker-loggers, client-metrics,
groups) are refused.

For users, SCRAM-SHA-256 and SCRAM-SHA-512 set a user's SCRAM credential
(--add-config 'SCRAM-SHA-256=[iterations=8192,password=secret]'; iterations
default to 4096, the minimum) or remove it (--delete-config SCRAM-SHA-256):
the password is salted here and only the salted password is sent
(AlterUserScramCredentials). --describe prints each credential's mechanism
and iterations, never the secret.

--zookeeper host:port[/chroot] instead of --bootstrap-server writes users'
SCRAM credentials straight into ZooKeeper, as kafka-configs --zookeeper
does: the way to create the brokers' own SCRAM user before the first broker
starts, when the inter-broker listener authenticates with SCRAM. It keeps
the user's other keys (quotas) and posts a /config/changes notification,
so running brokers pick the change up too. Only SCRAM keys of one named
user may be altered; --describe prints every key of a user's znode (or of
every user), the credentials in their stored, salted form. Kafka's
deprecation warning comes first, as kafka-configs prints it.

Quotas are rates averaged over Kafka's quota window,
quota.window.num (11) samples of quota.window.size.seconds (1 s): a client
is throttled once its average over the window exceeds the quota, so a run
shorter than the window can go faster than the quota, and a burst after a
quiet spell passes until the average catches up. To check a quota, measure
over 40 s or more.

Examples:
  kafgo configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders --alter --add-config retention.ms=3600000,cleanup.policy=[compact,delete]
  kafgo configs --bootstrap-server localhost:9092 --topic orders --describe
  kafgo configs --bootstrap-server localhost:9092 --entity-type brokers --entity-name 1 --alter --add-config follower.replication.throttled.rate=10000000
  kafgo configs --bootstrap-server localhost:9092 --broker-defaults --alter --delete-config log.retention.ms
  kafgo configs --bootstrap-server localhost:9092 --entity-type brokers --entity-name 1 --describe --all
  kafgo configs --bootstrap-server localhost:9092 --entity-type users --entity-name alice --alter --add-config producer_byte_rate=1048576,request_percentage=200
  kafgo configs --bootstrap-server localhost:9092 --entity-type users --entity-name alice --entity-type clients --entity-name c1 --alter --add-config consumer_byte_rate=2097152
  kafgo configs --bootstrap-server localhost:9092 --client-defaults --alter --add-config producer_byte_rate=1048576
  kafgo configs --bootstrap-server localhost:9094 --command-config admin.properties --entity-type users --entity-name alice --alter --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]'
  kafgo configs --bootstrap-server localhost:9092 --entity-type users --describe
  kafgo configs --zookeeper localhost:2181 --alter --add-config 'SCRAM-SHA-512=[password=admin-secret]' --entity-type users --entity-name admin
  kafgo configs --zookeeper localhost:2181 --describe --entity-type users --entity-name admin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (bootstrap == "") == (zookeeper == "") {
				return errors.New("Only one of --bootstrap-server or --zookeeper must be specified")
			}
			fl := cmd.Flags()
			if err := entities.Apply(&o, fl); err != nil {
				return err
			}
			if err := o.Shortcuts(topic, fl.Changed("topic"), broker, fl.Changed("broker"), brokerDefaults); err != nil {
				return err
			}
			if addFile != "" {
				b, err := os.ReadFile(addFile)
				if err != nil {
					return fmt.Errorf("--add-config-file: %w", err)
				}
				o.AddFile = string(b)
			}
			if zookeeper != "" {
				if commandConfig != "" {
					return errors.New("--command-config is only valid with --bootstrap-server")
				}
				return configs.RunZooKeeper(cmd.Context(), zookeeper, o, cmd.OutOrStdout())
			}
			if err := o.Validate(); err != nil {
				return err
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			// Kafka's error line quotes the tool's arguments.
			args := os.Args[1:]
			if len(args) > 0 && args[0] == cmd.Name() {
				args = args[1:]
			}
			return configs.Run(cmd.Context(), cl, o, args, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "The Kafka servers to connect to (this or --zookeeper is required).")
	f.StringVar(&zookeeper, "zookeeper", "", "The ZooKeeper connection string, host:port[,host:port][/chroot]: users' SCRAM credentials only, e.g. before the brokers start.")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to Admin Client.")
	entities.Register(f)
	f.StringVar(&topic, "topic", "", "The topic's name (shortcut for --entity-type topics --entity-name <topic>).")
	f.StringVar(&broker, "broker", "", "The broker's ID (shortcut for --entity-type brokers --entity-name <id>).")
	f.BoolVar(&brokerDefaults, "broker-defaults", false, "The config defaults for all brokers (shortcut for --entity-type brokers --entity-default).")
	f.BoolVar(&o.Describe, "describe", false, "List configs for the given entity.")
	f.BoolVar(&o.Alter, "alter", false, "Alter the configuration for the entity.")
	f.BoolVar(&o.All, "all", false, "List all configs for the given topic or broker, including static configuration and defaults.")
	f.StringVar(&o.AddConfig, "add-config", "", "Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'.")
	f.StringVar(&addFile, "add-config-file", "", "Path to a properties file with configs to add.")
	f.StringArrayVar(&o.DeleteConfig, "delete-config", nil, "config keys to remove 'k1,k2'")
	return cmd
}
