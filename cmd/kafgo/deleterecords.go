package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"kafgo/deleterecords"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newDeleteRecordsCommand) }

func newDeleteRecordsCommand() *cobra.Command {
	var bootstrap, offsetJSONFile, commandConfig string
	cmd := &cobra.Command{
		Use:   "delete-records",
		Short: "Delete the records of partitions up to an offset (kafka-delete-records)",
		Long: `Delete the records of the given partitions down to the specified offset,
with the flags, JSON file and output of Kafka's kafka-delete-records.sh.
An offset of -1 deletes up to the high watermark.

Examples:
  kafgo delete-records --bootstrap-server localhost:9092 --offset-json-file offsets.json

offsets.json:
  {"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version": 1}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, req := range []struct{ name, val string }{{"bootstrap-server", bootstrap}, {"offset-json-file", offsetJSONFile}} {
				if req.val == "" {
					return fmt.Errorf("Missing required argument \"[%s]\"", req.name)
				}
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return deleterecords.Run(cmd.Context(), cl, offsetJSONFile, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: The server to connect to.")
	f.StringVar(&offsetJSONFile, "offset-json-file", "", "REQUIRED: The JSON file with offset per partition. The format to use is:\n{\"partitions\":\n  [{\"topic\": \"foo\", \"partition\": 1, \"offset\": 1}],\n \"version\":1\n}")
	f.StringVar(&commandConfig, "command-config", "", "A property file containing configs to be passed to Admin Client.")
	return cmd
}
