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
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run one broker until SIGTERM or SIGINT",
		Long: `Run one broker. Settings use Kafka's server.properties names, from a YAML
file (--config) and/or flags of the same names; flags win over the file.

Without zookeeper.connect the broker runs alone on an embedded metadata
store under log.dirs; with it, brokers form a cluster coordinated through
ZooKeeper (Kafka 2.x znode layout).

SIGTERM or SIGINT shuts down cleanly: controlled shutdown moves leaderships
away, logs are flushed and checkpointed, and a clean-shutdown marker lets the
next start skip log recovery.`,
		Example: `  kafgo broker serve --config examples/dev.yaml
  kafgo broker serve --broker.id 1 --listeners PLAINTEXT://127.0.0.1:9092 \
      --log.dirs /var/lib/kafgo --zookeeper.connect 127.0.0.1:2181
  kafgo broker serve --override num.partitions=6`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&configPath, "config", "", "YAML file of broker settings (Kafka server.properties names)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	flags := config.RegisterFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		overrides, err := flags.Overrides()
		if err != nil {
			return err
		}
		cfg, err := config.Load(configPath, overrides)
		if err != nil {
			return err
		}
		var level slog.Level
		if err := level.UnmarshalText([]byte(strings.ToUpper(logLevel))); err != nil {
			return fmt.Errorf("--log-level %q: %w", logLevel, err)
		}
		logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
		return serve(cmd.Context(), cfg, logger)
	}
	return cmd
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
