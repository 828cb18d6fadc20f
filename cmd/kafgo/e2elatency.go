package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"kafgo/e2elatency"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newE2ELatencyCommand) }

func newE2ELatencyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "e2e-latency broker_list topic num_messages producer_acks message_size_bytes [properties_file]",
		Short: "Measure the produce-to-consume latency of single records (EndToEndLatency)",
		Long: `Measure the time one record takes from a synchronous send to a consumer at
the topic's end, one record at a time, with the arguments and output of
Kafka's EndToEndLatency tool (kafka-run-class.sh
org.apache.kafka.tools.EndToEndLatency).

producer_acks is 1 or all. A missing topic is created with one partition
and replication factor 1. Every 1000th record prints its latency in ms;
the end prints the average and the 50th, 99th and 99.9th percentiles.

Examples:
  kafgo e2e-latency localhost:9092 latency-test 10000 all 100
  kafgo e2e-latency localhost:9092 latency-test 10000 1 1024 client.properties`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := e2elatency.ParseArgs(args)
			if err == nil {
				_, err = e2elatency.Run(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return &cliutil.CommandError{Err: err}
			}
			return nil
		},
	}
}
