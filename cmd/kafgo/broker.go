package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"kafgo/broker"
	"kafgo/broker/config"
)

func init() { commandGroups = append(commandGroups, newBrokerCommand) }

func newBrokerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "broker",
		Short: "Run a kafgo broker",
	}
	cmd.AddCommand(newBrokerServeCommand())
	return cmd
}

func newBrokerServeCommand() *cobra.Command {
	var configPath, logLevel string
	var checkOnly bool
	cmd := &cobra.Command{
		Use:   "serve [server.properties]",
		Short: "Run one broker until SIGTERM or SIGINT",
		Long: `Run one broker. Settings use Kafka's server.properties names, from a config
file (a Java properties file such as Kafka's server.properties, or YAML),
given as the argument as to kafka-server-start.sh or with --config, from
KAFKA_<KEY> environment variables (the Apache and Confluent images'
convention: KAFKA_LOG_DIRS is log.dirs, '_' in a key is written '__'), and
from flags of the same names and --override key=value. Flags win over the
environment, which wins over the file.

Keys of Kafka's that kafgo does not act on as Kafka would are listed once at
start-up, each with what kafgo does instead; a key whose absence would
change what the broker does is refused.

Without zookeeper.connect the broker runs alone on an embedded metadata
store under log.dirs; with it, brokers form a cluster coordinated through
ZooKeeper (Kafka 2.x znode layout).

SIGTERM or SIGINT shuts down cleanly: controlled shutdown moves leaderships
away, logs are flushed and checkpointed, and a clean-shutdown marker lets the
next start skip log recovery.`,
		Example: `  kafgo broker serve /etc/kafka/server.properties --override broker.id=2
  kafgo broker serve --config examples/dev.yaml
  kafgo broker serve --broker.id 1 --listeners PLAINTEXT://127.0.0.1:9092 \
      --log.dirs /var/lib/kafgo --zookeeper.connect 127.0.0.1:2181
  kafgo broker serve --override num.partitions=6`,
		Args: cobra.MaximumNArgs(1),
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config file: Java properties (server.properties) or YAML, Kafka's key names")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	cmd.Flags().BoolVar(&checkOnly, "check-config", false, "read the configuration, print the start-up report (keys kafgo does not act on as Kafka would) and exit: 0 if the broker would start with it")
	flags := config.RegisterFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			if configPath != "" {
				return fmt.Errorf("the config file is given twice: %s and --config %s", args[0], configPath)
			}
			configPath = args[0]
		}
		overrides, err := flags.Overrides()
		if err != nil {
			return err
		}
		var level slog.Level
		if err := level.UnmarshalText([]byte(strings.ToUpper(logLevel))); err != nil {
			return fmt.Errorf("--log-level %q: %w", logLevel, err)
		}
		cfg, err := config.LoadSources(config.Sources{Path: configPath, Env: os.Environ(), Overrides: overrides})
		if err != nil {
			return err
		}
		if checkOnly {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "configuration valid: broker.id %d, log.dirs %s, %s\n", cfg.BrokerID, strings.Join(cfg.LogDirs, ","), metadataStore(cfg))
			for _, n := range cfg.Notices() {
				fmt.Fprintln(out, n.String())
			}
			return nil
		}
		logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
		reportNotices(logger, cfg.Notices())
		return serve(cmd.Context(), cfg, logger)
	}
	return cmd
}

func metadataStore(cfg *config.Broker) string {
	if cfg.Embedded() {
		return "embedded metadata store"
	}
	return "zookeeper.connect " + cfg.ZooKeeperConnect
}

// reportNotices logs the start-up report: every key given that kafgo does
// not act on as Kafka would, once, with what it does instead.
func reportNotices(logger *slog.Logger, notices []config.Notice) {
	if len(notices) == 0 {
		return
	}
	logger.Warn("config: keys kafgo does not act on as Kafka would", "count", len(notices))
	for _, n := range notices {
		logger.Warn("config: "+n.Action, "key", n.Key, "value", n.Value, "from", n.Origin, "instead", n.Detail)
	}
}

func serve(ctx context.Context, cfg *config.Broker, logger *slog.Logger) error {
	if ctx == nil {
		ctx = context.Background()
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	b := broker.New(cfg, logger)
	startCtx, cancel := context.WithCancel(ctx)
	started := make(chan error, 1)
	go func() { started <- b.Start(startCtx) }()
	select {
	case err := <-started:
		cancel()
		if err != nil {
			shutdown(b, logger)
			return err
		}
	case s := <-sigs:
		// Start returns as soon as the step it is in sees the cancel.
		logger.Info("signal during start-up; stopping", "signal", s.String())
		exitOnSecondSignal(sigs, logger)
		cancel()
		<-started
		return shutdown(b, logger)
	}
	s := <-sigs
	logger.Info("shutting down", "signal", s.String())
	exitOnSecondSignal(sigs, logger)
	return shutdown(b, logger)
}

// exitOnSecondSignal makes a second signal mean "now".
func exitOnSecondSignal(sigs <-chan os.Signal, logger *slog.Logger) {
	go func() {
		<-sigs
		logger.Warn("second signal: exiting without a clean shutdown")
		os.Exit(1)
	}()
}

func shutdown(b *broker.Broker, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		logger.Error("shutdown finished with errors", "err", err)
		return err
	}
	return nil
}
