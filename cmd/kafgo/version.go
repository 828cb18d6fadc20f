package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { commandGroups = append(commandGroups, newVersionCommand) }

// versionText is what both `kafgo version` and `kafgo --version` print:
// the version stamped at link time (-X main.version=...) and the Go
// toolchain that built the binary.
func versionText() string {
	return fmt.Sprintf("kafgo %s\n%s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the kafgo version and the Go version that built it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}
