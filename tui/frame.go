package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// Frame: title, tabs, cluster header (one line, or more when narrow),
// rule (with the breadcrumb of the pages opened), body, status, then the
// key help line in a live view.
const chromeLines = 4

func (m Model) bodyHeight(w, h int) int {
	return max(1, h-chromeLines-len(m.headerLines(w))-len(m.helpLines(w)))
}

// Smallest frame worth drawing.
const minWidth, minHeight = 20, 8

// View renders the frame: exactly height lines, none wider than width.
func (m Model) View() string {
	w, h := m.size()
	if w < minWidth || h < minHeight {
		return fit(fmt.Sprintf("terminal too small (%dx%d)", w, h), w)
	}
	lines := []string{m.titleLine(w), m.tabsLine(w)}
	lines = append(lines, m.headerLines(w)...)
	lines = append(lines, m.ruleLine(w))
	helpLines := m.helpLines(w)
	bodyH := m.bodyHeight(w, h)
	var tail []string
	if m.prompt != nil {
		tail = m.prompt.render(m.st, w)
		if len(tail) >= bodyH {
			tail = tail[len(tail)-bodyH+1:]
		}
	}
	body := m.body(w, bodyH-len(tail))
	if room := bodyH - len(tail); len(body) > room {
		// Never cut in silence: the last line says how many did not fit
		// (itself included, so always more than one).
		cut := len(body) - room + 1
		body = append(body[:room-1], fit(m.st.dim.Render(fmt.Sprintf("  … %d more lines", cut)), w))
	}
	for len(body)+len(tail) < bodyH {
		body = append(body, "")
	}
	lines = append(lines, body...)
	lines = append(lines, tail...)
	lines = append(lines, m.statusLine(w))
	lines = append(lines, helpLines...)
	return strings.Join(lines, "\n")
}

func (m Model) body(w, h int) []string {
	switch m.overlay {
	case helpOverlay:
		return m.helpBody(w, h)
	case warningsOverlay:
		return m.warnings.render(m.warns, m.st, w, h)
	}
	if m.snap == nil {
		if m.err != nil {
			return fitAll([]string{m.st.statusErr.Render("Cannot reach the cluster."), "", m.err.Error(), "", m.retryNote()}, w)
		}
		return fitAll([]string{"Connecting to " + orDash(m.opt.Target) + "…"}, w)
	}
	mm := m
	e := mm.env()
	if e.stale != nil && h > 1 {
		// Every view says, first, that what it shows is the cluster's
		// last answer.
		note := fit(m.st.warn.Render("No answer from the cluster: what follows is its last answer, "+e.stale.age()+"."), w)
		return append([]string{note}, mm.top().render(e, w, h-1)...)
	}
	return mm.top().render(e, w, h)
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
	if m.opt.ReadOnly {
		parts = append(parts, m.st.warn.Render("read-only"))
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

// headerLines is the cluster at a glance: brokers, topics, partitions and
// what is wrong with them, then the totals (records and bytes in and
// out, consumer lag). One line when it fits, else as few as it takes
// (two at 80 columns), the totals on a line of their own when that costs
// no line more, so that the totals are never cut off.
func (m Model) headerLines(w int) []string {
	if m.snap == nil {
		return []string{""}
	}
	health, totals := m.headerParts()
	packed := wrapParts(append(append([]string{}, health...), totals...), w)
	if len(packed) == 1 || len(totals) == 0 {
		return packed
	}
	if apart := append(wrapParts(health, w), wrapParts(totals, w)...); len(apart) <= len(packed) {
		return apart
	}
	return packed
}

// headerParts are the header's health and totals parts.
func (m Model) headerParts() (health, totals []string) {
	s := m.snap
	sum := s.summary()
	offline, unreachable := 0, 0
	for _, b := range s.Brokers {
		switch {
		case b.Offline:
			offline++
		default:
			if _, ok := m.probes.unreachable(b.ID); ok {
				unreachable++
			}
		}
	}
	st := m.st
	brokers := plural(len(s.Brokers), "broker", "brokers")
	if offline+unreachable > 0 {
		brokers += " (" + joinParts(countIf(unreachable, "unreachable", st.bad.Render), countIf(offline, "offline", st.bad.Render)) + ")"
	}
	health = []string{brokers, plural(len(s.Topics), "topic", "topics"), plural(sum.partitions, "partition", "partitions"),
		countIf(sum.offline, "offline", st.bad.Render), countIf(sum.underMinISR, "under min ISR", st.bad.Render),
		countIf(sum.underReplicated, "under-replicated", st.warn.Render), countIf(sum.nonPreferred, "non-preferred", st.warn.Render)}
	if s.Reassignments != nil {
		health = append(health, countIf(len(s.Reassignments.Moves), "reassigning", st.warn.Render))
	}
	if v, ok := m.tr.clusterIn.last(); ok {
		vals := m.tr.clusterIn.vals
		totals = append(totals, "in "+siCount(v)+" rec/s "+st.good.Render(sparkline(vals, min(8, len(vals)))))
	}
	if v, ok := m.tr.clusterBytesIn.last(); ok {
		totals = append(totals, siBytes(v)+"/s in")
	}
	if v, ok := m.tr.clusterBytesOut.last(); ok {
		totals = append(totals, siBytes(v)+"/s out")
	}
	if len(s.Groups) > 0 {
		if v, ok := m.tr.clusterLag.last(); ok {
			totals = append(totals, "lag "+siCount(v))
		}
	}
	if s.NoAdmin {
		// Said once, here, rather than a "-" left unexplained in
		// every view.
		totals = append(totals, st.warn.Render(noAdminNote))
	}
	if m.err != nil {
		// The counts are the cluster's last answer; the rates between
		// refreshes are unknown.
		age := (&staleness{since: s.Taken, failedAt: m.failedAt}).age()
		health = nonEmpty(health)
		health[0] = age + ": " + health[0]
		return append([]string{st.bad.Render("unknown now")}, health...), nil
	}
	return nonEmpty(health), nonEmpty(totals)
}

// noAdminNote says why follower lag and byte rates show as "-".
const noAdminNote = "no --admin: follower lag, bytes unknown"

// wrapParts joins parts with " · " on as many lines of width w as they
// need, one at least.
func wrapParts(parts []string, w int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch next := joinParts(cur, p); {
		case cur == "" || ansi.StringWidth(next) <= w:
			cur = next
		default:
			lines = append(lines, fit(cur, w))
			cur = p
		}
	}
	return append(lines, fit(cur, w))
}

func nonEmpty(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ruleLine separates the header from the body; with pages open it names
// them, the breadcrumb Esc walks back along.
func (m Model) ruleLine(w int) string {
	var crumbs []string
	switch {
	case m.overlay == helpOverlay:
		crumbs = []string{"Help"}
	case m.overlay == warningsOverlay:
		crumbs = []string{"Warnings"}
	case len(m.stack) > 0:
		crumbs = append(crumbs, viewTitles[m.active])
		for _, s := range m.stack {
			crumbs = append(crumbs, s.p.crumb())
		}
	}
	if len(crumbs) == 0 {
		return m.st.rule.Render(strings.Repeat("─", w))
	}
	label := "─ " + strings.Join(crumbs, " › ") + " "
	if n := ansi.StringWidth(label); n < w {
		label += strings.Repeat("─", w-n)
	}
	return fit(m.st.rule.Render(label), w)
}

func (m Model) statusLine(w int) string {
	if m.filtering {
		return fit(m.st.title.Render("/")+m.filterIn.String()+cursorMark+"  "+m.st.dim.Render("enter: keep · esc: clear"), w)
	}
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
	if n := m.warns.activeCount(); n > 0 {
		note := plural(n, "warning", "warnings")
		if !m.opt.Once {
			note += " (w)"
		}
		line += " · " + m.st.warn.Render(note)
	}
	if m.err != nil {
		line = m.st.statusErr.Render("error: "+firstLine(m.err.Error())) + " · " + line
	}
	if m.flash != "" {
		style := m.st.good
		if m.flashBad {
			style = m.st.bad
		}
		line = style.Render(m.flash) + " · " + line
	}
	return fit(line, w)
}

func (m Model) helpLines(w int) []string {
	if m.opt.Once {
		return nil
	}
	// bubbles' help line drops the keys that do not fit for a "…", but
	// adds the next one anyway when the "…" itself would not fit: a
	// narrower budget then keeps whole keys only.
	h := m.help
	line := ""
	for h.Width = w; h.Width > 0; h.Width-- {
		if line = h.ShortHelpView(m.shortKeys()); ansi.StringWidth(line) <= w {
			break
		}
	}
	return []string{fit(line, w)}
}

// shortKeys are the keys on the help line: what the view in front does,
// then the ones every view has.
func (m Model) shortKeys() []key.Binding {
	k := m.keys
	switch {
	case m.prompt != nil || m.filtering:
		return nil
	case m.overlay != noOverlay:
		return []key.Binding{k.Up, k.Down, withHelp(k.Back, "close"), k.Quit}
	}
	out := []key.Binding{k.Help}
	if len(m.stack) > 0 {
		out = append(out, k.Back)
	} else {
		out = append(out, k.Next)
	}
	mm := m
	out = append(out, mm.top().hints(k)...)
	return append(out, k.Quit)
}

// helpBody is the help overlay: every key, by section, in as many
// columns as the width holds, scrolled to helpTop.
func (m Model) helpBody(w, h int) []string {
	lines := m.helpContent(w)
	top := min(m.helpTop, max(0, len(lines)-h+1))
	if len(lines) > h {
		shown := lines[top:min(len(lines), top+h-1)]
		return fitAll(append(append([]string{}, shown...), m.st.dim.Render(moreLine(top, len(lines)-top-len(shown))+" (j/k to scroll)")), w)
	}
	return fitAll(lines, w)
}

// helpContent is every line of the help overlay.
func (m Model) helpContent(w int) []string {
	var lines []string
	if m.opt.ReadOnly {
		lines = append(lines, m.st.warn.Render("Read-only mode (--read-only): the actions below are disabled."), "")
	}
	var blocks [][]string
	keyW := 0
	for _, sec := range m.keys.sections() {
		for _, b := range sec.keys {
			keyW = max(keyW, ansi.StringWidth(b.Help().Key))
		}
	}
	for _, sec := range m.keys.sections() {
		block := []string{m.st.header.Render(sec.title)}
		for _, b := range sec.keys {
			block = append(block, "  "+m.st.title.Render(padRight(b.Help().Key, keyW))+"  "+b.Help().Desc)
		}
		blocks = append(blocks, append(block, ""))
	}
	const colW = 40
	cols := max(1, min(len(blocks), w/colW))
	// Fill the columns in order, each about as tall as the others.
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	per := (total + cols - 1) / cols
	columns := make([][]string, cols)
	c := 0
	for _, b := range blocks {
		if c < cols-1 && len(columns[c]) > 0 && len(columns[c])+len(b) > per {
			c++
		}
		columns[c] = append(columns[c], b...)
	}
	rows := 0
	for _, col := range columns {
		rows = max(rows, len(col))
	}
	for r := range rows {
		var b strings.Builder
		for i, col := range columns {
			cell := ""
			if r < len(col) {
				cell = col[r]
			}
			if i < len(columns)-1 {
				cell = fit(cell, colW-1)
				cell += strings.Repeat(" ", max(0, colW-ansi.StringWidth(cell)))
			}
			b.WriteString(cell)
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	lines = append(lines, "", m.st.header.Render("Where the figures come from"))
	for _, n := range figureNotes {
		for i, l := range wordWrap(n, max(10, w-4)) {
			if i == 0 {
				lines = append(lines, "  "+l)
			} else {
				lines = append(lines, "    "+l)
			}
		}
	}
	return lines
}

// figureNotes close the help overlay: how the rates are measured, and
// what needs the admin endpoints.
var figureNotes = []string{
	"REC-IN/s: high watermark deltas between refreshes, from any Kafka.",
	fmt.Sprintf("CONSUMED/s, REC-OUT/s: committed offsets, between the commits seen to change (over up to %s), so they follow a consumer's commits (auto.commit.interval.ms), not each record it reads.", commitWindow),
	"Follower LEOs and lag, bytes in/out, the controller epoch: the brokers' admin endpoints (--admin); \"-\" without them.",
}

// wordWrap breaks s at blanks into lines of at most w cells; a word
// longer than w gets a line of its own (and is cut when drawn).
func wordWrap(s string, w int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	return append(lines, cur)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
