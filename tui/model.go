package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Options shapes the model.
type Options struct {
	// Refresh is the interval between snapshots (and broker probes); 0
	// refreshes only on the refresh key.
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
	// ReadOnly turns every action off (--read-only).
	ReadOnly bool
}

// Model is the root bubbletea model: the tabs and the pages opened over
// them, the refresh and probe loops, prompts and overlays, and the frame
// around the active view. It is a value, as bubbletea expects; Update
// returns the changed copy.
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
	moves         reassignView
	// stack holds the pages opened over the active tab, the top last.
	stack  []stacked
	nextID int

	snap *Snapshot // last good snapshot, nil before the first
	err  error     // last refresh's error, nil after a good one
	// failedAt is when the last refresh failed, zero after a good one or
	// when not known; with snap, it dates how old what is shown is.
	failedAt time.Time
	loading  bool // a snapshot is being taken
	gen      int  // tick generation: a manual refresh voids the pending tick
	tr       *trends
	warns    *warnLog

	probes       probes
	probing      bool
	probeStarted bool // the probe loop runs from the first snapshot on
	probeGen     int

	overlay   overlay
	helpTop   int
	warnings  warningsView
	filtering bool
	filterIn  lineEdit
	prompt    *prompt
	flash     string // the latest notice (an action's outcome), until the next key
	flashBad  bool
}

// stacked is an open page and its id, which its messages carry.
type stacked struct {
	id int
	p  page
}

type overlay int

const (
	noOverlay overlay = iota
	helpOverlay
	warningsOverlay
)

// Messages.
type (
	snapshotMsg struct {
		snap *Snapshot
		err  error
		at   time.Time // when a failed refresh was tried
	}
	tickMsg      struct{ gen int }
	probeTickMsg struct{ gen int }
	probeMsg     struct {
		at      time.Time
		results map[int32]error
	}
	actionDoneMsg struct {
		act  action
		note string
		err  error
		at   time.Time
	}
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
		help: help.New(), active: o.View, loading: true, tr: newTrends(), warns: &warnLog{}, probes: probes{},
	}
	m.help.Styles = m.st.help
	m.topics.list.cur.key = o.Topic
	m.parts.topic = o.Topic
	m.groups.list.cur.key = o.Group
	m.groups.once = o.Once
	return m
}

// Init takes the first snapshot; the probe loop starts when it is in.
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
		if err != nil {
			return snapshotMsg{err: err, at: time.Now()}
		}
		return snapshotMsg{snap: s}
	}
}

func (m Model) tick() tea.Cmd {
	if m.opt.Refresh <= 0 {
		return nil
	}
	gen := m.gen
	return tea.Tick(m.opt.Refresh, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// probeTick schedules the next probe round after d (at once for 0).
func (m Model) probeTick(d time.Duration) tea.Cmd {
	if _, ok := m.src.(Prober); !ok || m.opt.Once {
		return nil
	}
	gen := m.probeGen
	if d <= 0 {
		return func() tea.Msg { return probeTickMsg{gen: gen} }
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return probeTickMsg{gen: gen} })
}

// probe checks the brokers of the latest snapshot.
func (m Model) probe() tea.Cmd {
	pr, ok := m.src.(Prober)
	if !ok || m.snap == nil {
		return nil
	}
	brokers := append([]Broker(nil), m.snap.Brokers...)
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout+time.Second)
		defer cancel()
		return probeMsg{at: time.Now(), results: pr.Probe(ctx, brokers)}
	}
}

// Update handles a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case snapshotMsg:
		cmd = m.gotSnapshot(msg)
	case tickMsg:
		if msg.gen == m.gen && !m.loading {
			m.loading = true
			cmd = m.fetch()
		}
	case probeTickMsg:
		switch {
		case msg.gen != m.probeGen:
		case m.snap == nil || m.probing:
			// Nothing to probe yet, or a round still running: try
			// again shortly rather than pile rounds up.
			cmd = m.probeTick(time.Second)
		default:
			m.probing = true
			cmd = m.probe()
		}
	case probeMsg:
		m.probing = false
		m.gotProbes(msg)
		if m.opt.Refresh > 0 {
			cmd = m.probeTick(m.opt.Refresh)
		}
	case actionDoneMsg:
		cmd = m.actionDone(msg)
	case tea.KeyMsg:
		cmd = m.key(msg)
	case pageMsg:
		cmd = m.toPage(msg)
	}
	m.layout()
	return m, cmd
}

func (m *Model) gotSnapshot(msg snapshotMsg) tea.Cmd {
	m.loading = false
	if msg.err != nil {
		// Keep showing the last good snapshot: a blip should not blank
		// the screen.
		m.err, m.failedAt = msg.err, msg.at
		m.warns.add(m.clock(), "refresh: "+firstLine(msg.err.Error()))
		return m.tick()
	}
	m.snap, m.err, m.failedAt = msg.snap, nil, time.Time{}
	m.tr.add(m.snap)
	// A broker gone from the cluster has nothing left to probe.
	for id := range m.probes {
		if _, ok := m.snap.Broker(id); !ok {
			delete(m.probes, id)
		}
	}
	m.observeWarnings()
	m.syncAll()
	if !m.probeStarted {
		m.probeStarted = true
		return tea.Batch(m.tick(), m.probeTick(0))
	}
	return m.tick()
}

// clock is the time of the latest observation, which stamps warnings
// and events so that frames stay reproducible.
func (m *Model) clock() time.Time {
	if m.snap != nil {
		return m.snap.Taken
	}
	return time.Now()
}

// gotProbes records a probe round: a broker that stops or starts
// answering changes state at the round's time and leaves an event in the
// warnings.
func (m *Model) gotProbes(msg probeMsg) {
	for id, err := range msg.results {
		prev, seen := m.probes[id]
		text := ""
		if err != nil {
			text = firstLine(err.Error())
		}
		switch {
		case !seen || (prev.Err == "") != (text == ""):
			m.probes[id] = Probe{Err: text, Since: msg.at}
			if text == "" && seen {
				m.warns.add(msg.at, fmt.Sprintf("broker %d answers again", id))
			}
		default:
			p := m.probes[id]
			p.Err = text
			m.probes[id] = p
		}
	}
	m.observeWarnings()
}

// observeWarnings feeds the warnings pane: the snapshot's warnings and
// the unreachable brokers.
func (m *Model) observeWarnings() {
	var texts []string
	if m.snap != nil {
		texts = append(texts, m.snap.Warnings...)
		for _, b := range m.snap.Brokers {
			if p, ok := m.probes.unreachable(b.ID); ok {
				texts = append(texts, fmt.Sprintf("broker %d unreachable: %s", b.ID, p.Err))
			}
		}
	}
	m.warns.observe(m.clock(), texts)
}

func (m *Model) actionDone(msg actionDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.flash, m.flashBad = msg.act.desc+" failed: "+firstLine(msg.err.Error()), true
		m.warns.add(m.clock(), m.flash)
	} else {
		m.flash, m.flashBad = msg.act.desc+": done", false
		if msg.note != "" {
			m.flash = msg.act.desc + ": " + msg.note
		}
	}
	var cmds []tea.Cmd
	if msg.act.page != 0 {
		cmds = append(cmds, m.toPage(pageNote{id: msg.act.page, done: msg}))
	}
	// Show what the action changed.
	cmds = append(cmds, m.refresh())
	return tea.Batch(cmds...)
}

// pageNote tells a page that its action finished.
type pageNote struct {
	id   int
	done actionDoneMsg
}

func (n pageNote) pageID() int { return n.id }

// refresh takes a snapshot now, unless one is being taken.
func (m *Model) refresh() tea.Cmd {
	if m.loading {
		return nil
	}
	m.gen++
	m.loading = true
	return m.fetch()
}

// env is what a view is called with.
func (m *Model) env() *env {
	e := &env{s: m.snap, tr: m.tr, st: m.st, k: m.keys, once: m.opt.Once, readOnly: m.opt.ReadOnly,
		probes: m.probes, src: m.src, ctx: m.ctx, timeout: m.opt.Timeout}
	if m.snap != nil {
		e.now = m.snap.Taken
	}
	if m.err != nil && m.snap != nil {
		// The cluster no longer answers: what the snapshot says is its
		// last word, and rates between refreshes are unknown.
		e.stale = &staleness{since: m.snap.Taken, failedAt: m.failedAt}
		e.tr = newTrends()
	}
	return e
}

// top is the view in front: the top page, else the active tab.
func (m *Model) top() view {
	if n := len(m.stack); n > 0 {
		return m.stack[n-1].p
	}
	return m.tab(m.active)
}

func (m *Model) tab(v View) view {
	switch v {
	case ViewTopics:
		return &m.topics
	case ViewPartitions:
		return &m.parts
	case ViewGroups:
		return &m.groups
	case ViewTransactions:
		return &m.txns
	case ViewReassignments:
		return &m.moves
	}
	return &m.brokers
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	m.flash = ""
	if m.prompt != nil {
		return m.promptKey(msg)
	}
	if m.filtering {
		m.filterKey(msg)
		return nil
	}
	k := m.keys
	if m.overlay != noOverlay {
		return m.overlayKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.overlay, m.helpTop = helpOverlay, 0
	case key.Matches(msg, k.Warnings):
		m.overlay = warningsOverlay
		m.warnings.list.cur.set(m.warnings.keys(m.warns), len(m.warns.items)-1)
	case key.Matches(msg, k.Refresh):
		var cmds []tea.Cmd
		if cmd := m.refresh(); cmd != nil {
			cmds = append(cmds, cmd)
		}
		if !m.probing && m.snap != nil {
			m.probing = true
			m.probeGen++ // the scheduled round is replaced by this one
			cmds = append(cmds, m.probe())
		}
		if n := len(m.stack); n > 0 {
			if r, ok := m.stack[n-1].p.(pageReloader); ok {
				cmds = append(cmds, r.reload(m.env(), m.stack[n-1].id))
			}
		}
		return tea.Batch(cmds...)
	case key.Matches(msg, k.Next):
		m.switchTo(m.step(1))
	case key.Matches(msg, k.Prev):
		m.switchTo(m.step(-1))
	case m.tabKey(msg) >= 0:
		m.switchTo(View(m.tabKey(msg))) // says so if the cluster cannot show it
	case key.Matches(msg, k.Filter):
		if m.snap != nil {
			if l := m.top().filterable(m.env()); l != nil {
				m.filtering, m.filterIn = true, newLineEdit(l.filter)
			}
		}
	case key.Matches(msg, k.Back):
		return m.back()
	default:
		if m.snap != nil {
			e := m.env()
			cmd := m.top().update(msg, e)
			return tea.Batch(cmd, m.apply(e))
		}
	}
	return nil
}

// tabKey is the tab a digit key names, -1 if it is not one.
func (m *Model) tabKey(msg tea.KeyMsg) int {
	for v := View(0); v < numViews; v++ {
		if key.Matches(msg, m.keys.Tab[v]) {
			return int(v)
		}
	}
	return -1
}

// back clears the list's filter first, then leaves the page, then goes
// from a topic's partitions to the topics.
func (m *Model) back() tea.Cmd {
	if m.snap != nil {
		if l := m.top().filterable(m.env()); l != nil && l.filter != "" {
			l.filter = ""
			m.syncAll()
			return nil
		}
	}
	if n := len(m.stack); n > 0 {
		m.closePage(n - 1)
		return nil
	}
	if m.active == ViewPartitions {
		// Back lands on the topic being looked at, wherever the topics
		// list was left.
		m.topics.list.cur.key = m.parts.topic
		if m.snap != nil {
			m.topics.sync(m.env())
		}
		m.active = ViewTopics
	}
	return nil
}

// apply carries out what a view asked for.
func (m *Model) apply(e *env) tea.Cmd {
	if e.flash != "" {
		m.flash, m.flashBad = e.flash, false
	}
	if e.prompt != nil {
		m.prompt = e.prompt
	}
	if e.openTopic != "" {
		m.closePages()
		if m.snap != nil {
			m.parts.show(m.env(), e.openTopic, e.openPartition)
		}
		m.active = ViewPartitions
	}
	if e.push != nil {
		return m.pushPage(e.push)
	}
	return nil
}

func (m *Model) pushPage(p page) tea.Cmd {
	m.nextID++
	id := m.nextID
	m.stack = append(m.stack, stacked{id: id, p: p})
	if m.snap != nil {
		p.sync(m.env())
	}
	if o, ok := p.(pageOpener); ok {
		return o.open(m.env(), id)
	}
	return nil
}

// closePage closes the page at i and every page above it.
func (m *Model) closePage(i int) {
	for j := len(m.stack) - 1; j >= i; j-- {
		if c, ok := m.stack[j].p.(pageCloser); ok {
			c.close()
		}
	}
	m.stack = m.stack[:i]
}

func (m *Model) closePages() { m.closePage(0) }

// toPage hands a message to the page it is for; a page already closed
// gets nothing, but what the message holds is released.
func (m *Model) toPage(msg pageMsg) tea.Cmd {
	for _, s := range m.stack {
		if s.id == msg.pageID() {
			e := m.env()
			cmd := s.p.update(msg, e)
			return tea.Batch(cmd, m.apply(e))
		}
	}
	if c, ok := msg.(interface{ release() }); ok {
		c.release()
	}
	return nil
}

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch m.prompt.key(msg, m.keys) {
	case promptCancelled:
		m.prompt = nil
	case promptApplied:
		cmd := m.prompt.done
		m.prompt = nil
		return cmd
	case promptConfirmed:
		act := m.prompt.act
		m.prompt = nil
		m.flash, m.flashBad = act.desc+"…", false
		return m.run(act)
	}
	return nil
}

// run carries out a confirmed action.
func (m *Model) run(act action) tea.Cmd {
	actor, ok := m.src.(Actor)
	if !ok || m.opt.ReadOnly {
		return nil // ask has already said why
	}
	ctx, timeout := m.ctx, m.opt.Timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		note, err := act.run(ctx, actor)
		return actionDoneMsg{act: act, note: note, err: err}
	}
}

func (m *Model) filterKey(msg tea.KeyMsg) {
	l := m.top().filterable(m.env())
	switch msg.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc, tea.KeyCtrlC:
		m.filtering = false
		if l != nil {
			l.filter = ""
		}
	default:
		m.filterIn.key(msg)
		if l != nil {
			l.filter = m.filterIn.String()
		}
	}
	m.syncAll()
}

func (m *Model) overlayKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Back),
		m.overlay == helpOverlay && key.Matches(msg, k.Help),
		m.overlay == warningsOverlay && key.Matches(msg, k.Warnings):
		m.overlay = noOverlay
	case m.overlay == helpOverlay:
		w, h := m.size()
		m.helpTop = min(scrollKey(msg, k, m.helpTop), max(0, len(m.helpContent(w))-m.bodyHeight(w, h)+1))
	case m.overlay == warningsOverlay:
		m.warnings.list.key(msg, k, m.warnings.listing(m.warns, m.st))
	}
	return nil
}

// shows reports whether v has a tab: the transactions and reassignments
// views only when the cluster serves their APIs, or when it is the view
// asked for (it then says that they are not served).
func (m Model) shows(v View) bool {
	switch v {
	case ViewTransactions:
		return m.active == v || (m.snap != nil && m.snap.Transactions != nil)
	case ViewReassignments:
		return m.active == v || (m.snap != nil && m.snap.Reassignments != nil)
	}
	return true
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
	m.closePages()
	m.active = v
	m.defaultTopic()
}

// defaultTopic gives the partitions view the topic selected in the topics
// view when it has none yet.
func (m *Model) defaultTopic() {
	if m.snap != nil && m.parts.topic == "" {
		m.parts.show(m.env(), m.topics.selected(m.env()), -1)
	}
}

func (m *Model) syncAll() {
	if m.snap == nil {
		return
	}
	e := m.env()
	for v := View(0); v < numViews; v++ {
		m.tab(v).sync(e)
	}
	for _, s := range m.stack {
		s.p.sync(e)
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
	e := m.env()
	for v := View(0); v < numViews; v++ {
		m.tab(v).scroll(e, w, body)
	}
	for _, s := range m.stack {
		s.p.scroll(e, w, body)
	}
	m.warnings.scroll(m.warns, m.st, body)
}

func (m Model) size() (int, int) {
	if m.width <= 0 || m.height <= 0 {
		return defaultWidth, defaultHeight
	}
	return m.width, m.height
}
