package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// cell is one table cell: plain text, optionally styled. Widths are
// computed on the plain text and the style is applied after padding is
// decided, so escape sequences never disturb the layout. A numeric cell
// also carries its value, which is what sorting compares.
type cell struct {
	text    string
	style   *lipgloss.Style
	numeric bool
	value   float64
}

func txt(s string) cell { return cell{text: s} }

func styled(s string, st lipgloss.Style) cell { return cell{text: s, style: &st} }

// withStyle styles a cell, keeping its value.
func (c cell) withStyle(st lipgloss.Style) cell { c.style = &st; return c }

// number is a cell showing text for the value v.
func number(text string, v float64) cell { return cell{text: text, numeric: true, value: v} }

// num renders a count or offset; negative means unknown.
func num(n int64) cell {
	if n < 0 {
		return txt("-")
	}
	return number(strconv.FormatInt(n, 10), float64(n))
}

// optNum renders a value that may be unknown.
func optNum(n int64, ok bool) cell {
	if !ok {
		return txt("-")
	}
	return number(strconv.FormatInt(n, 10), float64(n))
}

// intCell renders an int.
func intCell(n int) cell { return number(strconv.Itoa(n), float64(n)) }

// ids renders a replica list the way kafka-topics does: 1,2,3.
func ids(v []int32) string {
	if len(v) == 0 {
		return "-"
	}
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// namedIDs is "broker 1" or "brokers 1,2,3".
func namedIDs(one, many string, v []int32) string {
	if len(v) == 1 {
		return one + " " + ids(v)
	}
	return many + " " + ids(v)
}

// column describes a table column.
type column struct {
	title string
	right bool // numbers align right
	flex  bool // shrinks first when the table is too wide (names, hosts)
	// drop > 0 marks a column (rates, trends) left out when the table
	// does not fit the width otherwise: the highest drop first, the
	// rightmost of equals first.
	drop int
	// keep, for a flex column, is how narrow it may get before droppable
	// columns make room for it (flexFloor when 0).
	keep int
	// yields, for a flex column, narrows it before the flex columns that
	// do not (a config's source before its name).
	yields bool
}

// table renders rows[from:to] under a header, with a two-column gutter
// marking the selected row ("> "), so selection is visible without
// colour too.
//
// When rows[from:to] is not all of them, a last line says how many are
// hidden ("… 12 more"), so a cut list never looks complete; hint follows
// it (the keys that scroll, in the live view).
type table struct {
	cols     []column
	rows     [][]cell
	sel      int // -1: no selection
	from, to int
	hint     string
	// sortCol is the 1-based column the rows are sorted by, marked in the
	// header; desc marks a descending (or reversed) order.
	sortCol int
	desc    bool
}

// visibleRows is how many of n rows a list shows in h lines: all of them
// when they fit, else one line fewer, which goes to the "… N more" line.
func visibleRows(n, h int) int {
	h = max(h, 1)
	if n <= h {
		return n
	}
	return max(1, h-1)
}

// moreLine says how many rows a window leaves out, above and below.
func moreLine(above, below int) string {
	switch {
	case above > 0 && below > 0:
		return fmt.Sprintf("  … %d above, %d more", above, below)
	case above > 0:
		return fmt.Sprintf("  … %d above", above)
	}
	return fmt.Sprintf("  … %d more", below)
}

const (
	gutter    = 2
	gap       = 2
	minFlexed = 4
	// flexFloor is how narrow a flex column may get before optional
	// columns make room for it.
	flexFloor = 12
)

// Sort markers in a header.
const (
	ascMark  = "▲"
	descMark = "▼"
)

func (t table) title(i int) string {
	s := t.cols[i].title
	if t.sortCol == i+1 {
		if t.desc {
			return s + descMark
		}
		return s + ascMark
	}
	return s
}

// natural is every column's widest cell, header included.
func (t table) natural(cols []int) []int {
	w := make([]int, len(cols))
	for j, i := range cols {
		w[j] = ansi.StringWidth(t.title(i))
	}
	for _, r := range t.rows {
		for j, i := range cols {
			if i < len(r) {
				w[j] = max(w[j], ansi.StringWidth(r[i].text))
			}
		}
	}
	return w
}

// shown picks the columns to draw: all of them when they fit with flex
// columns no narrower than flexFloor (or their natural width), else
// without droppable ones (see column.drop) until they do.
func (t table) shown(width int) []int {
	cols := make([]int, len(t.cols))
	for i := range cols {
		cols[i] = i
	}
	for {
		w := t.natural(cols)
		total := gutter + gap*(len(cols)-1)
		for j, i := range cols {
			if c := t.cols[i]; c.flex {
				floor := flexFloor
				if c.keep > 0 {
					floor = c.keep
				}
				total += min(w[j], floor)
			} else {
				total += w[j]
			}
		}
		drop := -1
		for j := len(cols) - 1; j >= 0; j-- {
			if d := t.cols[cols[j]].drop; d > 0 && (drop < 0 || d > t.cols[cols[drop]].drop) {
				drop = j
			}
		}
		if total <= width || drop < 0 {
			return cols
		}
		cols = append(cols[:drop:drop], cols[drop+1:]...)
	}
}

// widths fits the natural widths into width by narrowing flex columns,
// the yielding ones first, widest first, down to minFlexed. What still
// does not fit is cut at the right edge.
func (t table) widths(cols []int, width int) []int {
	w := t.natural(cols)
	total := gutter + gap*(len(w)-1)
	for _, x := range w {
		total += x
	}
	for total > width {
		widest := -1
		for _, yielding := range []bool{true, false} {
			for j, i := range cols {
				c := t.cols[i]
				if c.flex && (c.yields || !yielding) && w[j] > minFlexed && (widest < 0 || w[j] > w[widest]) {
					widest = j
				}
			}
			if widest >= 0 {
				break
			}
		}
		if widest < 0 {
			break
		}
		w[widest]--
		total--
	}
	return w
}

func (t table) render(st styles, width int) []string {
	cols := t.shown(width)
	cols, w := t.edge(cols, t.widths(cols, width), width)
	head := make([]cell, len(t.cols))
	for i := range t.cols {
		head[i] = styled(t.title(i), st.header)
	}
	out := []string{t.line(head, cols, w, false, st, width)}
	to := min(t.to, len(t.rows))
	for i := t.from; i < to; i++ {
		out = append(out, t.line(t.rows[i], cols, w, i == t.sel, st, width))
	}
	if above, below := t.from, len(t.rows)-to; above > 0 || below > 0 {
		out = append(out, fit(st.dim.Render(moreLine(above, below)+t.hint), width))
	}
	return out
}

// edge settles the columns the right edge of the frame would cut: a
// number cut short reads as another number ("3.0MiB" as "3"), so a
// right-aligned column that does not fit whole is left out, with every
// column after it; a text column keeps what fits, its cells ending in
// "…", when at least minFlexed cells are left for it.
func (t table) edge(cols, w []int, width int) ([]int, []int) {
	pos := gutter
	for j, i := range cols {
		if j > 0 {
			pos += gap
		}
		if pos+w[j] <= width {
			pos += w[j]
			continue
		}
		if room := width - pos; !t.cols[i].right && room >= minFlexed {
			w[j] = room
			return cols[:j+1], w[:j+1]
		}
		return cols[:j], w[:j]
	}
	return cols, w
}

func (t table) line(cells []cell, cols, w []int, selected bool, st styles, width int) string {
	var b strings.Builder
	if selected {
		b.WriteString("> ")
	} else {
		b.WriteString("  ")
	}
	for j, i := range cols {
		var c cell
		if i < len(cells) {
			c = cells[i]
		}
		text := c.text
		if ansi.StringWidth(text) > w[j] {
			text = ansi.Truncate(text, w[j], "…")
		}
		pad := strings.Repeat(" ", w[j]-ansi.StringWidth(text))
		if c.style != nil && !selected {
			text = c.style.Render(text)
		}
		if t.cols[i].right {
			b.WriteString(pad + text)
		} else {
			b.WriteString(text + pad)
		}
		if j < len(cols)-1 {
			b.WriteString(strings.Repeat(" ", gap))
		}
	}
	line := fit(b.String(), width)
	if selected && !st.plain {
		// The bar spans the whole width, like a list cursor.
		return st.selected.Render(line + strings.Repeat(" ", max(0, width-ansi.StringWidth(line))))
	}
	return line
}

// fit cuts s to width display columns and drops trailing blanks, so that
// frames compare equal however a terminal would pad them. A cut line ends
// in "…", so that it does not read as whole; a figure the cut would go
// through ("908KiB/s" as "90") goes whole, replaced by "…": a number cut
// short reads as another number.
func fit(s string, width int) string {
	if ansi.StringWidth(s) > width {
		if at, ok := figureCut(ansi.Strip(s), width-1); ok {
			s = ansi.Truncate(s, at+1, "…")
		} else {
			s = ansi.Truncate(s, width, "…")
		}
	}
	return strings.TrimRight(s, " ")
}

// maxFigure is the longest word fit treats as a figure; a longer one
// (a hex dump, an encoded value) is text, cut where the width ends.
const maxFigure = 24

// figureCut reports where the word that plain (s without its styling)
// would be cut in at width starts, when that word holds a digit: the
// cut then goes before it. width is the room before the "…" fit adds.
func figureCut(plain string, width int) (int, bool) {
	col, start, startCol, digit := 0, 0, 0, false
	for i, r := range plain {
		if r == ' ' {
			start, startCol, digit = i+1, col+1, false
		} else if r >= '0' && r <= '9' {
			digit = true
		}
		rw := ansi.StringWidth(string(r))
		if col+rw > width {
			// r does not fit: a cut inside a word, unless r is a blank.
			if r == ' ' || startCol >= width {
				return 0, false
			}
			// The rest of the word decides whether it is a figure.
			end := strings.IndexByte(plain[i:], ' ')
			word := plain[start:]
			if end >= 0 {
				word = plain[start : i+end]
			}
			if !digit {
				digit = strings.ContainsAny(word, "0123456789")
			}
			switch {
			case !digit || ansi.StringWidth(word) > maxFigure:
				return 0, false
			case startCol == 0:
				// Nothing before it: mark the cut at least.
				return width, true
			}
			return startCol, true
		}
		col += rw
	}
	return 0, false
}

// cursor is a selection in a list that changes under it. It follows the
// selected item's key across refreshes, so a topic created above the
// selected one does not move the selection; when the item disappears the
// selection stays at the same position.
type cursor struct {
	key string
	idx int
	top int // first visible row
}

func (c *cursor) sync(keys []string) {
	if len(keys) == 0 {
		c.idx, c.top = 0, 0
		return
	}
	for i, k := range keys {
		if k == c.key {
			c.idx = i
			return
		}
	}
	c.idx = min(max(c.idx, 0), len(keys)-1)
	c.key = keys[c.idx]
}

func (c *cursor) set(keys []string, idx int) {
	if len(keys) == 0 {
		return
	}
	c.idx = min(max(idx, 0), len(keys)-1)
	c.key = keys[c.idx]
}

func (c *cursor) move(keys []string, delta int) { c.set(keys, c.idx+delta) }

// scroll moves the window over n rows in h lines (visibleRows of them) the
// least needed to show the selection.
func (c *cursor) scroll(n, h int) {
	h = visibleRows(n, h)
	if c.idx < c.top {
		c.top = c.idx
	}
	if c.idx >= c.top+h {
		c.top = c.idx - h + 1
	}
	c.top = min(max(c.top, 0), max(0, n-h))
}

// window is the visible range for n rows in h lines, as scroll would
// leave it; rendering uses it so a frame never depends on whether scroll
// ran first.
func (c cursor) window(n, h int) (from, to int) {
	c.scroll(n, h)
	return c.top, min(n, c.top+visibleRows(n, h))
}
