package tui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// groupsView lists consumer groups and, under them, the selected group's
// per-partition lag (committed offset against the high watermark, as
// kafka-consumer-groups --describe computes it).
type groupsView struct {
	cur        cursor
	page       int  // rows the group list showed last
	detailTop  int  // first offset row shown
	detailRows int  // offset rows that fit last time
	once       bool // a printed frame: no key hints
}

func groupKeys(s *Snapshot) []string {
	keys := make([]string, len(s.Groups))
	for i, g := range s.Groups {
		keys[i] = g.ID
	}
	return keys
}

// heights splits the body: the summary and a blank, the group table (at
// most half of what remains: the detail is what one looks at), then a
// blank, the detail title and header, and the offset rows.
func (v *groupsView) heights(s *Snapshot, h int) (list, detail int) {
	avail := h - 6
	list = min(max(len(s.Groups), 1), max(1, avail/2))
	return list, max(1, avail-list)
}

func (v *groupsView) sync(s *Snapshot) {
	before := v.cur.key
	v.cur.sync(groupKeys(s))
	if v.cur.key != before {
		v.detailTop = 0
	}
}

func (v *groupsView) update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd {
	before := v.cur.key
	if listKeys(msg, k, &v.cur, groupKeys(s), v.page) {
		if v.cur.key != before {
			v.detailTop = 0
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.DetailDown):
		v.detailTop++
	case key.Matches(msg, k.DetailUp):
		v.detailTop--
	}
	v.clampDetail(s)
	return nil
}

func (v *groupsView) clampDetail(s *Snapshot) {
	n := 0
	if len(s.Groups) > 0 {
		n = len(s.Groups[v.cur.idx].Offsets)
	}
	v.detailTop = min(max(v.detailTop, 0), max(0, n-visibleRows(n, v.detailRows)))
}

func (v *groupsView) scroll(s *Snapshot, _, h int) {
	v.page, v.detailRows = v.heights(s, h)
	v.cur.scroll(len(s.Groups), v.page)
	v.clampDetail(s)
}

func (v *groupsView) render(s *Snapshot, st styles, w, h int) []string {
	var total int64
	lagging := 0
	for _, g := range s.Groups {
		if l, ok := g.Lag(); ok {
			total += l
			if l > 0 {
				lagging++
			}
		}
	}
	out := []string{joinParts(plural(len(s.Groups), "group", "groups"),
		countIf(lagging, "lagging", st.warn.Render), "total lag "+strconv.FormatInt(total, 10)), ""}
	anyErr := false
	for _, g := range s.Groups {
		anyErr = anyErr || g.Err != ""
	}
	tb := table{
		cols: []column{{title: "GROUP", flex: true}, {title: "STATE"}, {title: "PROTOCOL", flex: true},
			{title: "MEMBERS", right: true}, {title: "PARTITIONS", right: true}, {title: "LAG", right: true}},
		sel: v.cur.idx,
	}
	if anyErr {
		tb.cols = append(tb.cols, column{title: "ERROR", flex: true})
	}
	for _, g := range s.Groups {
		lag, known := g.Lag()
		row := []cell{txt(g.ID), stateCell(g.State, st), txt(orDash(g.Protocol)), txt(strconv.Itoa(len(g.Members))),
			txt(strconv.Itoa(len(g.Offsets))), lagCell(lag, known, st)}
		if anyErr {
			row = append(row, styled(orDash(g.Err), st.bad))
		}
		tb.rows = append(tb.rows, row)
	}
	list, detail := v.heights(s, h)
	tb.from, tb.to = v.cur.window(len(tb.rows), list)
	out = append(out, tb.render(st, w)...)
	if len(s.Groups) == 0 {
		return fitAll(append(out, "  no consumer groups"), w)
	}
	out = append(out, "")
	out = append(out, v.offsets(s.Groups[v.cur.idx], st, w, detail)...)
	return fitAll(out, w)
}

// offsets is the detail of one group: rows offset rows from detailTop.
func (v *groupsView) offsets(g Group, st styles, w, rows int) []string {
	lag, known := g.Lag()
	title := joinParts("Group "+st.title.Render(g.ID), orDash(g.State), "protocol "+orDash(g.Protocol),
		plural(len(g.Members), "member", "members"), "coordinator "+num(int64(g.Coordinator)).text,
		"lag "+optNum(lag, known).text)
	tb := table{
		cols: []column{{title: "TOPIC", flex: true}, {title: "PARTITION", right: true}, {title: "COMMITTED", right: true},
			{title: "END", right: true}, {title: "LAG", right: true}, {title: "CLIENT-ID", flex: true}, {title: "HOST", flex: true}},
		sel: -1,
	}
	for _, o := range g.Offsets {
		l, ok := o.Lag()
		tb.rows = append(tb.rows, []cell{txt(o.Topic), txt(strconv.Itoa(int(o.Partition))), num(o.Committed),
			num(o.End), lagCell(l, ok, st), txt(orDash(o.ClientID)), txt(orDash(o.Host))})
	}
	n := len(tb.rows)
	shown := visibleRows(n, rows)
	top := min(max(v.detailTop, 0), max(0, n-shown))
	tb.from, tb.to = top, top+shown
	if !v.once {
		tb.hint = " (J/K to scroll)"
	}
	out := append([]string{title}, tb.render(st, w)...)
	if n == 0 {
		return append(out, "  no committed offsets")
	}
	return out
}

// stateCell colours a group state: Stable is the healthy one, a
// rebalance is transient, Dead is gone.
func stateCell(state string, st styles) cell {
	switch state {
	case "Stable":
		return styled(state, st.good)
	case "PreparingRebalance", "CompletingRebalance":
		return styled(state, st.warn)
	case "Dead":
		return styled(state, st.bad)
	}
	return txt(orDash(state))
}
