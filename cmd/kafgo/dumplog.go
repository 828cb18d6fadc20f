package main

import (
	"github.com/spf13/cobra"

	"kafgo/dumplog"
)

func init() { commandGroups = append(commandGroups, newDumpLogCommand) }

// newDumpLogCommand is `kafgo dump-log-segments`. The command and its flags
// live in package dumplog (NewCommand), so they are tested there; main
// honours the exit status its *dumplog.Error carries.
func newDumpLogCommand() *cobra.Command { return dumplog.NewCommand() }
