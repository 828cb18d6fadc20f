package tui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// groupsView lists consumer groups and, under them, the selected group's
// per-partition lag (committed offset against the high watermark, as
// kafka-consumer-groups --describe computes it); enter opens the group.
type groupsView struct {
	list       listState
	detailTop  int  // first offset row shown
	detailRows int  // offset rows that fit last time
	once       bool // a printed frame: no key hints
}

func (v *groupsView) listing(e *env) listing {
	s, st := e.s, e.st
	anyErr := false
	for _, g := range s.Groups {
		anyErr = anyErr || g.Err != ""
	}
	cols := []column{{title: "GROUP", flex: true}, {title: "STATE"}, {title: "PROTOCOL", flex: true},
		{title: "MEMBERS", right: true}, {title: "PARTITIONS", right: true}, {title: "LAG", right: true}}
	health := anyHealth(s.Groups)
	if health {
		cols = append(cols, column{title: "STATUS"}, column{title: "TIME-LAG", right: true})
	}
	if anyErr {
		cols = append(cols, column{title: "ERROR", flex: true})
	}
	cols = append(cols, column{title: "LAG-TREND", drop: 1}, column{title: "CONSUMED/s", right: true, drop: 1})
	var rows []row
	for _, g := range s.Groups {
		lag, known := g.Lag()
		cells := []cell{txt(g.ID), stateCell(g.State, st), txt(orDash(g.Protocol)), intCell(len(g.Members)),
			intCell(len(g.Offsets)), lagCell(lag, known, st)}
		if health {
			status, timeLag := groupHealthCells(g, st)
			cells = append(cells, status, timeLag)
		}
		if anyErr {
			cells = append(cells, styled(orDash(g.Err), st.bad))
		}
		cells = append(cells, trendCell(e.tr.groupLag[g.ID], trendWidth), rateCell(e.tr.groupRate[g.ID], siCount))
		rows = append(rows, row{key: g.ID, cells: cells})
	}
	return v.list.apply(cols, rows)
}

// heights splits the body: the summary and a blank, the group table (at
// most half of what remains: the detail is what one looks at), then a
// blank, the detail title and header, and the offset rows.
func (v *groupsView) heights(ls listing, h int) (list, detail int) {
	return splitListDetail(len(ls.rows), h-6)
}

func (v *groupsView) selected(e *env) (Group, bool) {
	r, ok := v.list.selected(v.listing(e))
	if !ok {
		return Group{}, false
	}
	return e.s.Group(r.key)
}

func (v *groupsView) sync(e *env) {
	before := v.list.cur.key
	v.list.sync(v.listing(e))
	if v.list.cur.key != before {
		v.detailTop = 0
	}
}

func (v *groupsView) filterable(*env) *listState { return &v.list }

func (v *groupsView) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Open, k.DetailDown, k.DetailUp, k.Filter, k.Sort}
}

func (v *groupsView) update(msg tea.Msg, e *env) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	before := v.list.cur.key
	if v.list.key(km, e.k, v.listing(e)) {
		if v.list.cur.key != before {
			v.detailTop = 0
		}
		return nil
	}
	g, ok := v.selected(e)
	switch {
	case key.Matches(km, e.k.DetailDown):
		v.detailTop++
	case key.Matches(km, e.k.DetailUp):
		v.detailTop--
	case !ok:
	case key.Matches(km, e.k.Open):
		e.openPage(newGroupPage(g.ID))
	case key.Matches(km, e.k.ResetOffsets):
		askResetOffsets(e, g)
	}
	v.clampDetail(e)
	return nil
}

func (v *groupsView) clampDetail(e *env) {
	n := 0
	if g, ok := v.selected(e); ok {
		n = len(g.Offsets)
	}
	v.detailTop = min(max(v.detailTop, 0), max(0, n-visibleRows(n, v.detailRows)))
}

func (v *groupsView) scroll(e *env, _, h int) {
	ls := v.listing(e)
	var list int
	list, v.detailRows = v.heights(ls, h)
	v.list.scroll(ls, list)
	v.clampDetail(e)
}

func (v *groupsView) render(e *env, w, h int) []string {
	s, st := e.s, e.st
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
	ls := v.listing(e)
	out := []string{listSummary(&v.list, ls, st, joinParts(plural(len(s.Groups), "group", "groups"),
		countIf(lagging, "lagging", st.warn.Render), "total lag "+strconv.FormatInt(total, 10))), ""}
	list, detail := v.heights(ls, h)
	out = append(out, v.list.table(ls, list).render(st, w)...)
	g, ok := v.selected(e)
	if !ok {
		return fitAll(append(out, emptyView(len(s.Groups), "consumer groups", "group")), w)
	}
	out = append(out, "")
	out = append(out, v.offsets(g, st, w, detail)...)
	return fitAll(out, w)
}

// groupTitle is a group's one-line description.
func groupTitle(g Group, st styles) string {
	lag, known := g.Lag()
	return joinParts("Group "+st.title.Render(g.ID), orDash(g.State), "protocol "+orDash(g.Protocol),
		plural(len(g.Members), "member", "members"), "coordinator "+num(int64(g.Coordinator)).text,
		"lag "+optNum(lag, known).text)
}

// offsets is the detail of one group: rows offset rows from detailTop.
func (v *groupsView) offsets(g Group, st styles, w, rows int) []string {
	tb := table{cols: offsetColumns(), sel: -1}
	if g.Health != nil {
		tb.cols = append(tb.cols, column{title: "STATUS"}, column{title: "TIME-LAG", right: true}, column{title: "ETA", right: true})
	}
	for _, o := range g.Offsets {
		cells := offsetCells(o, st)
		if g.Health != nil {
			cells = append(cells, offsetHealthCells(o, st)...)
		}
		tb.rows = append(tb.rows, cells)
	}
	n := len(tb.rows)
	shown := visibleRows(n, rows)
	top := min(max(v.detailTop, 0), max(0, n-shown))
	tb.from, tb.to = top, top+shown
	if !v.once {
		tb.hint = " (J/K to scroll)"
	}
	out := append([]string{groupTitle(g, st)}, tb.render(st, w)...)
	if n == 0 {
		return append(out, "  no committed offsets")
	}
	return out
}

func offsetColumns() []column {
	return []column{{title: "TOPIC", flex: true}, {title: "PARTITION", right: true}, {title: "COMMITTED", right: true},
		{title: "END", right: true}, {title: "LAG", right: true}, {title: "CLIENT-ID", flex: true}, {title: "HOST", flex: true}}
}

func offsetCells(o GroupOffset, st styles) []cell {
	l, ok := o.Lag()
	return []cell{txt(o.Topic), intCell(int(o.Partition)), num(o.Committed),
		num(o.End), lagCell(l, ok, st), txt(orDash(o.ClientID)), txt(orDash(o.Host))}
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
