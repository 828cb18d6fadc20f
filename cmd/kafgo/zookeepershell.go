package main

import (
	"errors"

	"strings"

	"github.com/spf13/cobra"

	"kafgo/zkshell"
)

func init() { commandGroups = append(commandGroups, newZooKeeperShellCommand) }

const zkShellUsage = "USAGE: kafgo zookeeper-shell zookeeper_host:port[/path] [--allow-writes] [args...]"

func newZooKeeperShellCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "zookeeper-shell zookeeper_host:port[/path] [--allow-writes] [cmd args...]",
		Short: "The ZooKeeper command line over the brokers' own client (zookeeper-shell)",
		Long: `Browse (and, with --allow-writes, change) the ZooKeeper tree the brokers keep
their metadata in, with the commands and output of Kafka's zookeeper-shell.sh
(ZooKeeper 3.8's command line), through the brokers' own ZooKeeper client.

With a command it runs that command and exits; without, it reads commands
from standard input. Read-only unless --allow-writes: create, set, delete
and deleteall are refused without it.

` + strings.TrimRight(zkshell.Usage(), "\n") + `

Examples:
  kafgo zookeeper-shell localhost:2181 ls /brokers/ids
  kafgo zookeeper-shell localhost:2181 get /controller
  kafgo zookeeper-shell localhost:2181/kafka stat /brokers/topics/orders
  kafgo zookeeper-shell localhost:2181 --allow-writes delete /admin/reassign_partitions`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			allow := false
			var rest []string
			for i, a := range args {
				switch {
				case a == "-h" || a == "--help":
					if len(rest) < 2 {
						return cmd.Help()
					}
					rest = append(rest, a)
				case a == "--allow-writes" && len(rest) < 2:
					allow = true
				case a == "-zk-tls-config-file" && len(rest) < 2:
					return errors.New("-zk-tls-config-file: kafgo's ZooKeeper client does not speak TLS")
				case a == "-server" && len(rest) == 0 && i+1 < len(args):
					// zookeeper-shell.sh passes -server itself; accept it too.
				default:
					rest = append(rest, a)
				}
			}
			if len(rest) == 0 {
				return errors.New(zkShellUsage)
			}
			connect := rest[0]
			sh, err := zkshell.Dial(cmd.Context(), connect, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			defer sh.Close()
			sh.Err = cmd.ErrOrStderr()
			sh.AllowWrites = allow
			if len(rest) == 1 {
				return sh.Interactive(cmd.Context(), cmd.InOrStdin(), connect)
			}
			if err := sh.Exec(cmd.Context(), rest[1:]); err != nil {
				return err
			}
			return nil
		},
	}
	return cmd
}
