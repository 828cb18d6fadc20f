package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/clustertool"
	"kafgo/internal/cliutil"
)

func init() { commandGroups = append(commandGroups, newClusterCommand) }

func newClusterCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "The Kafka cluster tool: cluster id, broker unregistration (kafka-cluster)",
		Long: `The Kafka cluster tool, with the subcommands, flags and output of Kafka's
kafka-cluster.sh.

Examples:
  kafgo cluster cluster-id --bootstrap-server localhost:9092
  kafgo cluster unregister --bootstrap-server localhost:9092 --id 3`,
		Args: cobra.NoArgs,
	}
	var id int32
	cmd.AddCommand(
		clusterSubcommand("cluster-id", "Get information about the ID of a cluster.", nil,
			func(ctx context.Context, cl *kgo.Client, out io.Writer) error {
				return clustertool.ClusterID(ctx, cl, out)
			}),
		clusterSubcommand("unregister", "Unregister a broker.", func(c *cobra.Command) {
			c.Flags().Int32VarP(&id, "id", "i", 0, "The ID of the broker to unregister.")
			_ = c.MarkFlagRequired("id")
		}, func(ctx context.Context, cl *kgo.Client, out io.Writer) error {
			return clustertool.Unregister(ctx, cl, id, out)
		}),
	)
	return cmd
}

// clusterSubcommand builds one of ClusterTool's subcommands, each with the
// same connection flags.
func clusterSubcommand(name, short string, extra func(*cobra.Command), run func(context.Context, *kgo.Client, io.Writer) error) *cobra.Command {
	var bootstrap, controller, config string
	c := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case bootstrap != "" && controller != "":
				return errors.New("argument --bootstrap-controller/-C: not allowed with argument --bootstrap-server/-b")
			case controller != "":
				return errors.New("--bootstrap-controller: kafgo runs no KRaft controllers; use --bootstrap-server")
			case bootstrap == "":
				return errors.New("one of the arguments --bootstrap-server/-b --bootstrap-controller/-C is required")
			}
			cl, err := cliutil.NewAdminClient(cliutil.AdminClientID, bootstrap, config, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			return run(cmd.Context(), cl, cmd.OutOrStdout())
		},
	}
	f := c.Flags()
	f.StringVarP(&bootstrap, "bootstrap-server", "b", "", "A list of host/port pairs to use for establishing the connection to the Kafka cluster.")
	f.StringVarP(&controller, "bootstrap-controller", "C", "", "A list of host/port pairs to use for establishing the connection to the KRaft controllers.")
	f.StringVarP(&config, "config", "c", "", "A property file containing configurations for the Admin client.")
	if extra != nil {
		extra(c)
	}
	return c
}
