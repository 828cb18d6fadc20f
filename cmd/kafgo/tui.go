package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"kafgo/internal/cliutil"
	"kafgo/internal/javaprops"
	"kafgo/tui"
)

func init() { commandGroups = append(commandGroups, newTUICommand) }

func newTUICommand() *cobra.Command {
	var (
		bootstrap, commandConfig, admin, view string
		refresh, timeout                      time.Duration
		once, noColor, readOnly               bool
		width, height                         int
		o                                     tui.Options
	)
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Live terminal workbench for a cluster: brokers, topics, groups, messages, actions",
		Long: `A live view of a running cluster, and the actions an operator takes on it:
brokers and the controller (each broker probed on its own connection every
refresh, so one that stops answering shows as unreachable at once), topics
with their under-replicated, under-min-ISR, offline and non-preferred-led
partitions, the partitions of one topic (leader, replicas, ISR, offline
replicas, high watermark, each replica's log end offset and its lag behind
the leader), consumer groups with their per-partition lag, open
transactions (a tab when the cluster serves KIP-664) and reassignments in
progress (a tab when it serves KIP-455), with records in per second, bytes
in and out, and lag over time as sparklines.

Enter opens what is selected: a broker's partitions and configs, a topic's
partitions, a group's members and per-partition lag, a transaction's
partitions, and a partition's records in the message browser (from an
offset, a time or the latest N; decoded as text, JSON or hex; f follows
new records). Esc goes back. / filters any list, s and S sort it, ? lists
every key, w shows recent warnings with their times.

Actions, each behind a y/n confirmation: C creates a topic, D deletes
one, P adds partitions, e alters a config (in a configs view, c), R resets
an empty group's offsets, E runs a preferred leader election.
--read-only turns them all off.

Everything but the followers' log end offsets, the controller epoch and
byte counters comes over the Kafka protocol, from any Kafka 2.x cluster
or later (records in per second are high watermark deltas). The rest only
the brokers' admin endpoints (admin.listener) know: --admin lists them;
without it those show as "-", and the header says so.

Records consumed per second (CONSUMED/s, REC-OUT/s) come from committed
offsets, between the commits seen to change over the last 30s: they
follow the consumers' commits (auto.commit.interval.ms), not each record
read, and are "-" until two commits were seen.

--once prints one frame of --view at --width x --height and exits, for
scripts: without the key help, and with no colour unless stdout is a
terminal (and never with --no-color). A list too long for the frame ends
in a line saying how many rows it left out ("… 12 more").

Examples:
  kafgo tui --bootstrap-server localhost:9092
  kafgo tui --bootstrap-server localhost:9092 --admin localhost:9644,localhost:9645 --refresh 5s
  kafgo tui --bootstrap-server localhost:9092 --read-only
  kafgo tui --bootstrap-server localhost:9092 --once --view partitions --topic orders --width 120 --height 40`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bootstrap == "" {
				return errors.New(`Missing required argument "[bootstrap-server]"`)
			}
			v, err := tui.ParseView(view)
			if err != nil {
				return err
			}
			if refresh < 0 {
				return fmt.Errorf("--refresh must not be negative, got %s", refresh)
			}
			if once && (width <= 0 || height <= 0) {
				return fmt.Errorf("--width and --height must be positive, got %dx%d", width, height)
			}
			o.View, o.Refresh, o.Timeout, o.Target, o.ReadOnly = v, refresh, timeout, bootstrap, readOnly
			cl, err := cliutil.NewAdminClient(tuiClientID, bootstrap, commandConfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer cl.Close()
			src := tui.NewLive(cl, javaprops.List(admin))
			out := cmd.OutOrStdout()
			color := !noColor && tuiTerminal(out)
			if color {
				o.Renderer = lipgloss.NewRenderer(out)
			}
			if once {
				frame, err := tui.RenderOnce(cmd.Context(), src, o, width, height)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(out, frame)
				return err
			}
			if !tuiTerminal(out) || !isTerminal(os.Stdin) {
				return errors.New("kafgo tui needs a terminal; use --once to print a single frame")
			}
			return tui.Run(cmd.Context(), src, o, os.Stdin, out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&bootstrap, "bootstrap-server", "", "REQUIRED: The server(s) to connect to.")
	f.StringVar(&commandConfig, "command-config", "", "Property file containing configs to be passed to the Admin Client.")
	f.StringVar(&admin, "admin", "", "Admin endpoints (admin.listener) of the brokers, host:port[,host:port...], for follower log end offsets and the controller epoch.")
	f.DurationVar(&refresh, "refresh", 2*time.Second, "Interval between refreshes; 0 refreshes only on the r key.")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "Time limit for one refresh.")
	f.BoolVar(&once, "once", false, "Print one frame and exit.")
	f.StringVar(&view, "view", "brokers", "View to show first: brokers, topics, partitions, groups, transactions or reassignments.")
	f.StringVar(&o.Topic, "topic", "", "Topic the partitions view shows (default: the first).")
	f.StringVar(&o.Group, "group", "", "Group the groups view selects (default: the first).")
	f.IntVar(&width, "width", 100, "Frame width for --once.")
	f.IntVar(&height, "height", 30, "Frame height for --once.")
	f.BoolVar(&noColor, "no-color", false, "No colours or other styling.")
	f.BoolVar(&readOnly, "read-only", false, "Turn off every action (create/delete topic, add partitions, alter config, reset offsets, leader election).")
	return cmd
}

// tuiClientID is the TUI's client.id unless --command-config sets one.
const tuiClientID = "kafgo-tui"

// tuiTerminal reports whether w is a terminal (a pipe or buffer is not).
func tuiTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
