package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Options shapes the model.
type Options struct {
	// Refresh is the interval between snapshots; 0 refreshes only on
	// the refresh key.
	Refresh time.Duration
	// Timeout bounds one snapshot (default 10s).
	Timeout time.Duration
	// View is the tab shown first.
	View View
	// Topic is the topic the partitions view shows first, Group the
	// group first selected; "" picks the first.
	Topic, Group string
	// Target names the cluster in the title (the bootstrap servers).
	Target string
	// Renderer decides colours; nil renders no escape sequences.
	Renderer *lipgloss.Renderer
	// Once renders a frame to print (--once), not to interact with: no
	// key help, no refresh schedule, no key hints.
	Once bool
}

// Model is the root bubbletea model: the tabs, the refresh loop, the
// frame around the active view. It is a value, as bubbletea expects;
// Update returns the changed copy.
type Model struct {
	src  Source
	opt  Options
	ctx  context.Context
	keys keyMap
	st   styles
	help help.Model

	width, height int
	active        View
	brokers       brokersView
	topics        topicsView
	parts         partitionsView
	groups        groupsView
	txns          transactionsView

	snap     *Snapshot // last good snapshot, nil before the first
	err      error     // last refresh's error, nil after a good one
	loading  bool      // a snapshot is being taken
	gen      int       // tick generation: a manual refresh voids the pending tick
	showHelp bool
}

// Messages.
type (
	snapshotMsg struct {
		snap *Snapshot
		err  error
	}
	tickMsg struct{ gen int }
)

// Default frame size until the terminal reports its own.
const defaultWidth, defaultHeight = 80, 24

// New builds the model; Init takes the first snapshot.
func New(src Source, o Options) Model {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.View < 0 || o.View >= numViews {
		o.View = ViewBrokers
	}
	m := Model{
		src: src, opt: o, ctx: context.Background(), keys: defaultKeys(), st: newStyles(o.Renderer),
		help: help.New(), active: o.View, loading: true,
	}
	m.help.Styles = m.st.help
	m.topics.cur.key = o.Topic
	m.parts.topic = o.Topic
	m.groups.cur.key = o.Group
	m.groups.once = o.Once
	return m
}

// Init starts the first snapshot.
func (m Model) Init() tea.Cmd { return m.fetch() }

// fetch takes a snapshot in a command goroutine; only copies of what it
// needs cross into it, never the model.
func (m Model) fetch() tea.Cmd {
	src, ctx, timeout := m.src, m.ctx, m.opt.Timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		s, err := src.Snapshot(ctx)
		if err == nil && s == nil {
			err = errors.New("tui: source returned no snapshot")
		}
		return snapshotMsg{snap: s, err: err}
	}
}

func (m Model) tick() tea.Cmd {
	if m.opt.Refresh <= 0 {
		return nil
	}
	gen := m.gen
	return tea.Tick(m.opt.Refresh, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// Update handles a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case snapshotMsg:
		m.loading = false
		if msg.err != nil {
			// Keep showing the last good snapshot: a blip should not
			// blank the screen.
			m.err = msg.err
		} else {
			m.snap, m.err = msg.snap, nil
			m.syncAll()
		}
		cmd = m.tick()
	case tickMsg:
		if msg.gen == m.gen && !m.loading {
			m.loading = true
			cmd = m.fetch()
		}
	case openTopicMsg:
		if m.snap != nil {
			m.parts.show(m.snap, msg.topic)
		}
		m.active = ViewPartitions
	case tea.KeyMsg:
		cmd = m.key(msg)
	}
	m.layout()
	return m, cmd
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Refresh):
		if !m.loading {
			m.gen++
			m.loading = true
			return m.fetch()
		}
	case key.Matches(msg, k.Next):
		m.switchTo(m.step(1))
	case key.Matches(msg, k.Prev):
		m.switchTo(m.step(-1))
	case key.Matches(msg, k.Brokers):
		m.switchTo(ViewBrokers)
	case key.Matches(msg, k.Topics):
		m.switchTo(ViewTopics)
	case key.Matches(msg, k.Parts):
		m.switchTo(ViewPartitions)
	case key.Matches(msg, k.Grps):
		m.switchTo(ViewGroups)
	case key.Matches(msg, k.Txns):
		m.switchTo(ViewTransactions) // says so if the cluster cannot show them
	case key.Matches(msg, k.Back) && m.active == ViewPartitions:
		// Back lands on the topic being looked at, wherever the topics
		// list was left.
		m.topics.cur.key = m.parts.topic
		if m.snap != nil {
			m.topics.sync(m.snap)
		}
		m.active = ViewTopics
	default:
		if m.snap != nil {
			return m.pane(m.active).update(msg, m.snap, k)
		}
	}
	return nil
}

// shows reports whether v has a tab: the transactions view only when
// the cluster serves its APIs, or when it is the view asked for (it then
// says that they are not served).
func (m Model) shows(v View) bool {
	return v != ViewTransactions || m.active == v || (m.snap != nil && m.snap.Transactions != nil)
}

// step is the view dir tabs away from the active one, skipping the
// views without a tab.
func (m Model) step(dir int) View {
	v := m.active
	for range numViews {
		v = (v + View(dir) + numViews) % numViews
		if m.shows(v) {
			return v
		}
	}
	return m.active
}

func (m *Model) switchTo(v View) {
	m.active = v
	m.defaultTopic()
}

// defaultTopic gives the partitions view the topic selected in the topics
// view when it has none yet.
func (m *Model) defaultTopic() {
	if m.snap != nil && m.parts.topic == "" {
		m.parts.show(m.snap, m.topics.selected(m.snap))
	}
}

func (m *Model) pane(v View) pane {
	switch v {
	case ViewTopics:
		return &m.topics
	case ViewPartitions:
		return &m.parts
	case ViewGroups:
		return &m.groups
	case ViewTransactions:
		return &m.txns
	}
	return &m.brokers
}

func (m *Model) syncAll() {
	for v := View(0); v < numViews; v++ {
		m.pane(v).sync(m.snap)
	}
	m.defaultTopic()
}

// layout lets every view keep its selection on screen for the current
// size; View renders from the same numbers.
func (m *Model) layout() {
	if m.snap == nil {
		return
	}
	w, h := m.size()
	body := m.bodyHeight(w, h)
	for v := View(0); v < numViews; v++ {
		m.pane(v).scroll(m.snap, w, body)
	}
}

func (m Model) size() (int, int) {
	if m.width <= 0 || m.height <= 0 {
		return defaultWidth, defaultHeight
	}
	return m.width, m.height
}

// Frame: title, tabs, rule, body, status, help.
const chromeLines = 4

func (m Model) bodyHeight(w, h int) int { return max(1, h-chromeLines-len(m.helpLines(w))) }

// Smallest frame worth drawing.
const minWidth, minHeight = 20, 8

// View renders the frame: exactly height lines, none wider than width.
func (m Model) View() string {
	w, h := m.size()
	if w < minWidth || h < minHeight {
		return fit(fmt.Sprintf("terminal too small (%dx%d)", w, h), w)
	}
	lines := []string{m.titleLine(w), m.tabsLine(w), m.st.rule.Render(strings.Repeat("─", w))}
	helpLines := m.helpLines(w)
	bodyH := m.bodyHeight(w, h)
	body := m.body(w, bodyH)
	if len(body) > bodyH {
		// Never cut in silence: the last line says how many did not fit
		// (itself included, so always more than one).
		cut := len(body) - bodyH + 1
		body = append(body[:bodyH-1], fit(m.st.dim.Render(fmt.Sprintf("  … %d more lines", cut)), w))
	}
	for len(body) < bodyH {
		body = append(body, "")
	}
	lines = append(lines, body...)
	lines = append(lines, m.statusLine(w))
	lines = append(lines, helpLines...)
	return strings.Join(lines, "\n")
}

func (m Model) body(w, h int) []string {
	if m.snap == nil {
		if m.err != nil {
			return fitAll([]string{m.st.statusErr.Render("Cannot reach the cluster."), "", m.err.Error(), "", m.retryNote()}, w)
		}
		return fitAll([]string{"Connecting to " + orDash(m.opt.Target) + "…"}, w)
	}
	return m.pane(m.active).render(m.snap, m.st, w, h)
}

func (m Model) retryNote() string {
	if m.opt.Refresh > 0 {
		return fmt.Sprintf("Retrying every %s; press r to retry now.", m.opt.Refresh)
	}
	return "Press r to retry."
}

func (m Model) titleLine(w int) string {
	parts := []string{m.st.title.Render("kafgo tui"), orDash(m.opt.Target)}
	if m.snap != nil && m.snap.ClusterID != "" {
		parts = append(parts, "cluster "+m.snap.ClusterID)
	}
	return fit(joinParts(parts...), w)
}

// tabsLine marks the active tab with brackets as well as colour, so it
// reads the same in a plain frame.
func (m Model) tabsLine(w int) string {
	var b strings.Builder
	for v := View(0); v < numViews; v++ {
		if !m.shows(v) {
			continue
		}
		label := fmt.Sprintf("%d %s", v+1, viewTitles[v])
		switch {
		case v == m.active && m.st.plain:
			b.WriteString("[" + label + "]")
		case v == m.active:
			b.WriteString(m.st.tabActive.Render(" " + label + " "))
		default:
			b.WriteString(m.st.tabInactive.Render(" " + label + " "))
		}
		b.WriteString(" ")
	}
	return fit(b.String(), w)
}

func (m Model) statusLine(w int) string {
	var parts []string
	switch {
	case m.snap == nil && m.err == nil:
		parts = append(parts, "connecting…")
	case m.snap != nil:
		parts = append(parts, "updated "+m.snap.Taken.Format("15:04:05"))
	}
	switch {
	case m.opt.Once:
	case m.opt.Refresh > 0:
		parts = append(parts, "every "+m.opt.Refresh.String())
	default:
		parts = append(parts, "r to refresh")
	}
	if m.loading && m.snap != nil {
		parts = append(parts, "refreshing…")
	}
	line := m.st.status.Render(joinParts(parts...))
	if m.err != nil {
		line = m.st.statusErr.Render("error: "+firstLine(m.err.Error())) + " · " + line
	} else if m.snap != nil && len(m.snap.Warnings) > 0 {
		line += " · " + m.st.warn.Render(plural(len(m.snap.Warnings), "warning", "warnings")+": "+firstLine(m.snap.Warnings[0]))
	}
	return fit(line, w)
}

func (m Model) helpLines(w int) []string {
	if m.opt.Once {
		return nil
	}
	h := m.help
	h.Width = w
	if m.showHelp {
		return strings.Split(h.FullHelpView(m.keys.FullHelp()), "\n")
	}
	return []string{fit(h.ShortHelpView(m.keys.short(m.active)), w)}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
