package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/replicaverify"
)

func init() { commandGroups = append(commandGroups, newReplicaVerificationCommand) }

func newReplicaVerificationCommand() *cobra.Command {
	var (
		brokerList, whiteList string
		maxWaitMs, reportMs   int64
		o                     = replicaverify.DefaultOptions()
	)
	cmd := &cobra.Command{
		Use:   "replica-verification",
		Short: "Check that all replicas of partitions hold the same data (kafka-replica-verification)",
		Long: `Validate that all replicas for a set of topics have the same data, with
the flags and output of Kafka's kafka-replica-verification.sh: every broker
is fetched from (as the debugging consumer, which may read followers), the
replicas of each partition are compared batch by batch up to their high
watermarks, and the largest lag is reported every --report-interval-ms. It
runs until stopped; replicas whose offsets disagree end it with status 1.

Examples:
  kafgo replica-verification --broker-list localhost:9092
  kafgo replica-verification --broker-list localhost:9092 --topics-include 'orders.*' --report-interval-ms 5000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if brokerList == "" {
				return errors.New(`Missing required argument "[broker-list]"`)
			}
			f := cmd.Flags()
			if f.Changed("topics-include") && f.Changed("topic-white-list") {
				return errors.New("Option \"[topics-include]\" can't be used with option \"[topic-white-list]\"")
			}
			if !f.Changed("topics-include") && f.Changed("topic-white-list") {
				o.TopicsInclude = whiteList
			}
			o.MaxWait = time.Duration(maxWaitMs) * time.Millisecond
			o.ReportInterval = time.Duration(reportMs) * time.Millisecond
			cl, err := cliutil.NewAdminClient("replicaVerificationTool", brokerList, "", cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return replicaverify.Run(cmd.Context(), cl, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&brokerList, "broker-list", "", "REQUIRED: The list of hostname and port of the server to connect to.")
	f.Int32Var(&o.FetchSize, "fetch-size", o.FetchSize, "The fetch size of each request.")
	f.Int64Var(&maxWaitMs, "max-wait-ms", 1000, "The max amount of time each fetch request waits.")
	f.StringVar(&whiteList, "topic-white-list", ".*", "DEPRECATED use --topics-include instead; ignored if --topics-include specified. List of topics to verify replica consistency.")
	f.StringVar(&o.TopicsInclude, "topics-include", ".*", "List of topics to verify replica consistency.")
	f.Int64Var(&o.InitialTime, "time", -1, "Timestamp for getting the initial offsets. (timestamp/-1(latest)/-2(earliest))")
	f.Int64Var(&reportMs, "report-interval-ms", 30000, "The reporting interval.")
	return cmd
}
