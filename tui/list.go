package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// row is one line of a list: a key the selection follows across
// refreshes, and its cells.
type row struct {
	key   string
	cells []cell
}

// listState is what every list keeps between frames: the selection, the
// filter typed after "/", and the sort order chosen with s and S. The rows
// themselves are rebuilt from the snapshot each time, so a list never
// shows stale data.
type listState struct {
	cur  cursor
	page int // rows the list showed last, for page up/down
	// filter keeps the rows whose cells contain it, ignoring case.
	filter string
	// sortCol is the 1-based column the rows are sorted by; 0 keeps the
	// order the view gives (which desc then reverses).
	sortCol int
	desc    bool
}

// listing is a list's rows after its filter and sort.
type listing struct {
	cols []column
	rows []row
	all  int // rows before the filter
}

// apply filters and sorts rows; the sort is stable, so equal rows keep
// the view's order.
func (l *listState) apply(cols []column, rows []row) listing {
	out := listing{cols: cols, all: len(rows)}
	if f := strings.ToLower(l.filter); f != "" {
		for _, r := range rows {
			if r.matches(f) {
				out.rows = append(out.rows, r)
			}
		}
	} else {
		out.rows = append([]row(nil), rows...)
	}
	col := l.sortCol - 1
	switch {
	case col >= 0 && col < len(cols):
		sort.SliceStable(out.rows, func(i, j int) bool {
			a, b := cellAt(out.rows[i], col), cellAt(out.rows[j], col)
			if a.numeric != b.numeric {
				return a.numeric // unknowns last, whichever the direction
			}
			if l.desc {
				return lessCell(b, a)
			}
			return lessCell(a, b)
		})
	case l.desc:
		for i, j := 0, len(out.rows)-1; i < j; i, j = i+1, j-1 {
			out.rows[i], out.rows[j] = out.rows[j], out.rows[i]
		}
	}
	return out
}

func (r row) matches(lowered string) bool {
	if strings.Contains(strings.ToLower(r.key), lowered) {
		return true
	}
	for _, c := range r.cells {
		if strings.Contains(strings.ToLower(c.text), lowered) {
			return true
		}
	}
	return false
}

func cellAt(r row, i int) cell {
	if i < len(r.cells) {
		return r.cells[i]
	}
	return cell{}
}

// lessCell orders numbers by value before anything else (an unknown "-"
// sorts after every number, whichever the direction), then text.
func lessCell(a, b cell) bool {
	switch {
	case a.numeric && b.numeric:
		return a.value < b.value
	case a.numeric != b.numeric:
		return a.numeric
	}
	return a.text < b.text
}

func (ls listing) keys() []string {
	keys := make([]string, len(ls.rows))
	for i, r := range ls.rows {
		keys[i] = r.key
	}
	return keys
}

// selected is the selected row, if any.
func (l *listState) selected(ls listing) (row, bool) {
	if len(ls.rows) == 0 {
		return row{}, false
	}
	return ls.rows[min(max(l.cur.idx, 0), len(ls.rows)-1)], true
}

func (l *listState) sync(ls listing) { l.cur.sync(ls.keys()) }

// scroll keeps the selection within h rows.
func (l *listState) scroll(ls listing, h int) {
	l.page = h
	l.cur.scroll(len(ls.rows), h)
}

// table is the listing as a table window of h rows.
func (l *listState) table(ls listing, h int) table {
	t := table{cols: ls.cols, sel: l.cur.idx, sortCol: l.sortCol, desc: l.desc}
	for _, r := range ls.rows {
		t.rows = append(t.rows, r.cells)
	}
	t.from, t.to = l.cur.window(len(ls.rows), h)
	return t
}

// keyMsg handles the keys every list shares: moving the selection and
// sorting. It reports whether the key was one of them.
func (l *listState) key(msg tea.KeyMsg, k keyMap, ls listing) bool {
	keys := ls.keys()
	switch {
	case key.Matches(msg, k.Up):
		l.cur.move(keys, -1)
	case key.Matches(msg, k.Down):
		l.cur.move(keys, 1)
	case key.Matches(msg, k.PageUp):
		l.cur.move(keys, -max(l.page, 1))
	case key.Matches(msg, k.PageDown):
		l.cur.move(keys, max(l.page, 1))
	case key.Matches(msg, k.Home):
		l.cur.set(keys, 0)
	case key.Matches(msg, k.End):
		l.cur.set(keys, len(keys)-1)
	case key.Matches(msg, k.Sort):
		l.sortCol = (l.sortCol + 1) % (len(ls.cols) + 1)
		l.desc = false
	case key.Matches(msg, k.Reverse):
		l.desc = !l.desc
	default:
		return false
	}
	return true
}

// summary says what the filter and sort do to the list, "" when nothing.
func (l *listState) summary(ls listing) string {
	var parts []string
	if l.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %q: %d of %d shown", l.filter, len(ls.rows), ls.all))
	}
	if c := l.sortCol - 1; c >= 0 && c < len(ls.cols) {
		dir := "ascending"
		if l.desc {
			dir = "descending"
		}
		parts = append(parts, "sorted by "+strings.ToLower(ls.cols[c].title)+" "+dir)
	} else if l.desc {
		parts = append(parts, "reversed")
	}
	return strings.Join(parts, " · ")
}

// emptyList is what an empty list says: none when nothing is there,
// else that the filter matches nothing.
func emptyList(l *listState, none string) string {
	if l.filter != "" {
		return fmt.Sprintf("  no match for %q", l.filter)
	}
	return none
}

// listKey is the key a list view acts on: msg, when it is a key the
// list's own keys (moving, sorting) did not take.
func listKey(msg tea.Msg, e *env, l *listState, ls listing) (tea.KeyMsg, bool) {
	km, ok := msg.(tea.KeyMsg)
	if !ok || l.key(km, e.k, ls) {
		return km, false
	}
	return km, true
}

// updatePartitionList handles a key on a list whose rows are partitions
// (keyed as openPartition expects): the list's own keys, and enter opens
// the selected partition.
func updatePartitionList(msg tea.Msg, e *env, l *listState, ls listing) tea.Cmd {
	km, ok := listKey(msg, e, l, ls)
	if !ok {
		return nil
	}
	if r, ok := l.selected(ls); ok && key.Matches(km, e.k.Open) {
		openPartition(e, r.key)
	}
	return nil
}

// partitionListHints are the help line of such a list.
func partitionListHints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "partition"), k.Filter, k.Sort}
}

// pageList is a detail page: its head, a blank line, the list's summary,
// the list in height rows, and what an empty list says (none, or that the
// filter matches nothing).
func pageList(head []string, l *listState, ls listing, st styles, summary string, height, w int, none string) []string {
	out := append(head, "", listSummary(l, ls, st, summary))
	out = append(out, l.table(ls, height).render(st, w)...)
	if len(ls.rows) == 0 {
		out = append(out, emptyList(l, none))
	}
	return fitAll(out, w)
}

// splitListDetail shares avail lines between a list of rows and the
// detail of its selected row: the list takes what it needs up to half,
// the detail what is left (each at least one line).
func splitListDetail(rows, avail int) (list, detail int) {
	list = min(max(rows, 1), max(1, avail/2))
	return list, max(1, avail-list)
}

// emptyView is what a view's empty list says: "no <all>" when there are
// none (total 0), else that the filter matches no <one>.
func emptyView(total int, all, one string) string {
	if total == 0 {
		return "  no " + all
	}
	return "  no " + one + " matches the filter"
}
