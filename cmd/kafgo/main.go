// Command kafgo is a Kafka-compatible streaming platform: the broker and its
// operations suite in one binary.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is stamped at link time (make build sets -X main.version=...).
var version = "dev"

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "kafgo",
		Short:         "A Kafka-compatible streaming platform",
		Long:          "kafgo runs Kafka-protocol brokers and the tools that operate them.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(versionText())
	for _, add := range commandGroups {
		root.AddCommand(add())
	}
	useKafkaFlagStyle(root)
	return root
}

// commandGroups lists the constructors of the top-level commands; each
// command group file appends itself in an init function.
var commandGroups []func() *cobra.Command

func main() {
	root := newRootCommand()
	root.SetArgs(withOptionalValues(root, os.Args[1:]))
	if err := root.Execute(); err != nil {
		// Tools that print failures in Kafka's own words say so.
		var reported interface{ AlreadyReported() bool }
		if !errors.As(err, &reported) || !reported.AlreadyReported() {
			fmt.Fprintln(os.Stderr, "Error:", err)
		}
		// Tools that mirror Kafka's exit statuses carry their own code.
		var coded interface{ ExitCode() int }
		if errors.As(err, &coded) {
			os.Exit(coded.ExitCode())
		}
		os.Exit(1)
	}
}
