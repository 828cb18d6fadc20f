package main

import (
	"errors"

	"github.com/spf13/cobra"

	"kafgo/apiversions"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newBrokerAPIVersionsCommand) }

func newBrokerAPIVersionsCommand() *cobra.Command {
	var bootstrap, commandConfig string
	cmd := &cobra.Command{
		Use:   "broker-api-versions",
		Short: "Print the API versions each broker serves (kafka-broker-api-versions)",
		Long: `This tool helps to retrieve broker version information: for every broker,
the versions of each API it serves against those Kafka 3.9's Java client
speaks, in the output of Kafka's kafka-broker-api-versions.sh.

Examples:
  kafgo broker-api-versions --bootstrap-server localhost:9092`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bootstrap == "" {
				return errors.New(`Missing required argument "[bootstrap-server]"`)
			}
			cl, err := cliutil.NewAdminClient("admin-1", bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return apiversions.Run(cmd.Context(), cl, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&commandConfig, "command-config", "", "A property file containing configs to be passed to Admin Client.")
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: The server to connect to.")
	return cmd
}
