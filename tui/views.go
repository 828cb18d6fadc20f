package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	ViewTransactions  // shown when the cluster serves KIP-664 (see Model.shows)
	ViewReassignments // shown when the cluster serves KIP-455
	numViews
)

var viewNames = [numViews]string{"brokers", "topics", "partitions", "groups", "transactions", "reassignments"}
var viewTitles = [numViews]string{"Brokers", "Topics", "Partitions", "Groups", "Transactions", "Reassign"}

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

// env is what a view reads and asks for. The root builds it for every
// call; a view keeps only its own selection and scrolling, so the same
// env, state and size always give the same frame.
type env struct {
	s        *Snapshot
	tr       *trends
	st       styles
	k        keyMap
	once     bool
	readOnly bool
	probes   probes
	src      Source
	ctx      context.Context
	timeout  time.Duration
	now      time.Time // the frame's clock: the snapshot's time
	// stale is set while the cluster does not answer: s is its last
	// answer, and every figure from it is unknown now (lastValue).
	stale *staleness

	// What a view asks of the root during update.
	push          page    // open a page over the current one
	prompt        *prompt // ask for input or a confirmation
	openTopic     string  // show this topic's partitions
	openPartition int32   // selecting this one (-1: keep the selection)
	flash         string  // a one-line notice for the status line
}

// staleness dates a snapshot the cluster has stopped renewing.
type staleness struct {
	since    time.Time // the snapshot's time
	failedAt time.Time // when a refresh failed, zero if not known
}

// age is how old the last values are, "35s ago", or when they were taken
// when that is not known.
func (s *staleness) age() string {
	if s.failedAt.IsZero() || s.failedAt.Before(s.since) {
		return "as of " + s.since.Format("15:04:05")
	}
	return s.failedAt.Sub(s.since).Round(time.Second).String() + " ago"
}

// lastValue is v as a figure is shown: v itself while the cluster
// answers, else "unknown (v 35s ago)".
func (e *env) lastValue(v string) string {
	if e.stale == nil {
		return v
	}
	return "unknown (" + v + " " + e.stale.age() + ")"
}

// openPage asks the root to show p over the current view.
func (e *env) openPage(p page) { e.push = p }

// showTopic asks the root to show a topic in the partitions tab.
func (e *env) showTopic(topic string, partition int32) {
	e.openTopic, e.openPartition = topic, partition
}

// ask opens a prompt for an action, unless actions are off or the source
// cannot act; the status line then says why.
func (e *env) ask(p *prompt) {
	if e.readOnly {
		e.flash = "read-only mode (--read-only): " + p.title + " is disabled"
		return
	}
	if _, ok := e.src.(Actor); !ok {
		e.flash = "this source cannot " + strings.ToLower(p.title)
		return
	}
	e.prompt = p
}

// input opens a prompt that only changes the view.
func (e *env) input(p *prompt) { e.prompt = p }

// view is one screen: a tab, or a page opened over one (Enter drills
// down, Esc goes back). Its state is only selection, scrolling and what
// it loaded itself (configs, records); cluster data always comes from the
// env's snapshot.
type view interface {
	// sync re-finds the selection in a new snapshot.
	sync(e *env)
	// update handles a key the root did not take, or a message addressed
	// to the view.
	update(msg tea.Msg, e *env) tea.Cmd
	// scroll keeps the selection visible in a body of w×h cells.
	scroll(e *env, w, h int)
	// render draws the body, at most h lines of at most w cells.
	render(e *env, w, h int) []string
	// filterable is the list the filter and sort keys act on, nil if the
	// view has none.
	filterable(e *env) *listState
	// hints are the keys worth a place on the one-line help.
	hints(k keyMap) []key.Binding
}

// page is a view opened over a tab.
type page interface {
	view
	// crumb names the page in the breadcrumb: "Broker 2", "Configs".
	crumb() string
}

// pageOpener is a page that loads something when opened.
type pageOpener interface{ open(e *env, id int) tea.Cmd }

// pageCloser is a page holding something to release when it is left.
type pageCloser interface{ close() }

// pageReloader is a page that loads its own data again on the refresh
// key.
type pageReloader interface{ reload(e *env, id int) tea.Cmd }

// pageMsg is a message for the page with that id.
type pageMsg interface{ pageID() int }

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

// listSummary is a list's summary line with what its filter and sort do
// appended.
func listSummary(l *listState, ls listing, st styles, line string) string {
	if s := l.summary(ls); s != "" {
		return joinParts(line, st.dim.Render(s))
	}
	return line
}

// scrollKey moves the first line of a scrolled text (help, a record) by
// a key; it never goes above the first.
func scrollKey(msg tea.KeyMsg, k keyMap, top int) int {
	switch {
	case key.Matches(msg, k.Down):
		top++
	case key.Matches(msg, k.Up):
		top--
	case key.Matches(msg, k.PageDown):
		top += 10
	case key.Matches(msg, k.PageUp):
		top -= 10
	case key.Matches(msg, k.Home):
		top = 0
	case key.Matches(msg, k.End):
		top = scrollEnd // the view's scroll clamps it to its last page
	}
	return max(0, top)
}

// scrollEnd is a first line past any text: End's, clamped by the view.
const scrollEnd = 1 << 30

// openPartition opens the partitions page of a "topic-3" key, that
// partition selected.
func openPartition(e *env, tpKey string) {
	if topic, p, ok := partitionID(tpKey); ok {
		e.openPage(&partitionsView{topic: topic, list: listState{cur: cursor{key: strconv.Itoa(int(p))}}})
	}
}
