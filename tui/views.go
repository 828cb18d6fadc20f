package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// View names a tab.
type View int

// The tabs, in order.
const (
	ViewBrokers View = iota
	ViewTopics
	ViewPartitions
	ViewGroups
	ViewTransactions // shown when the cluster serves KIP-664 (see Model.shows)
	numViews
)

var viewNames = [numViews]string{"brokers", "topics", "partitions", "groups", "transactions"}
var viewTitles = [numViews]string{"Brokers", "Topics", "Partitions", "Groups", "Transactions"}

func (v View) String() string {
	if v < 0 || v >= numViews {
		return fmt.Sprintf("View(%d)", int(v))
	}
	return viewNames[v]
}

// ParseView reads a --view value.
func ParseView(s string) (View, error) {
	for i, n := range viewNames {
		if strings.EqualFold(s, n) {
			return View(i), nil
		}
	}
	return 0, fmt.Errorf("tui: unknown view %q (want %s)", s, strings.Join(viewNames[:], ", "))
}

// pane is one view's model. Its state is only selection and scrolling;
// the data always comes from the snapshot passed in, so a pane renders the
// same frame for the same snapshot, state and size.
type pane interface {
	// sync re-finds the selection in a new snapshot.
	sync(s *Snapshot)
	// update handles a key the root did not take.
	update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd
	// scroll keeps the selection visible in a body of w×h cells.
	scroll(s *Snapshot, w, h int)
	// render draws the body, at most h lines of at most w cells.
	render(s *Snapshot, st styles, w, h int) []string
}

// openTopicMsg asks the root to show a topic's partitions.
type openTopicMsg struct{ topic string }

// listKeys moves a cursor for the keys every list shares; it reports
// whether the key was one of them.
func listKeys(msg tea.KeyMsg, k keyMap, c *cursor, keys []string, page int) bool {
	switch {
	case key.Matches(msg, k.Up):
		c.move(keys, -1)
	case key.Matches(msg, k.Down):
		c.move(keys, 1)
	case key.Matches(msg, k.PageUp):
		c.move(keys, -max(page, 1))
	case key.Matches(msg, k.PageDown):
		c.move(keys, max(page, 1))
	case key.Matches(msg, k.Home):
		c.set(keys, 0)
	case key.Matches(msg, k.End):
		c.set(keys, len(keys)-1)
	default:
		return false
	}
	return true
}

// kv is a "Key:  value" line with the value at column 25, the layout of
// kafka-metadata-quorum describe --status.
func kv(key, value string) string { return fmt.Sprintf("%-24s%s", key+":", value) }

// joinParts joins already-styled parts with " · ".
func joinParts(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// fitAll cuts every line to width.
func fitAll(lines []string, width int) []string {
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = fit(l, width)
		}
	}
	return lines
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
