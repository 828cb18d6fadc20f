package tui

import (
	"strconv"
	"strings"
)

// warningsView is the warnings pane (w): what went wrong recently, with
// when it was first and last seen, the current ones marked; the selected
// one in full under the list.
type warningsView struct{ list listState }

func (v *warningsView) keys(w *warnLog) []string {
	keys := make([]string, len(w.items))
	for i := range w.items {
		keys[i] = strconv.Itoa(i)
	}
	return keys
}

func (v *warningsView) listing(w *warnLog, st styles) listing {
	cols := []column{{title: "FIRST"}, {title: "LAST"}, {title: "NOW"}, {title: "WARNING", flex: true}}
	rows := make([]row, 0, len(w.items))
	for i, it := range w.items {
		last := ""
		if !it.last.Equal(it.first) {
			last = it.last.Format("15:04:05")
		}
		now := txt("")
		text := txt(it.text)
		if it.active {
			now = styled("yes", st.warn)
			text = text.withStyle(st.warn)
		}
		rows = append(rows, row{key: strconv.Itoa(i), cells: []cell{txt(it.first.Format("15:04:05")), txt(last), now, text}})
	}
	return v.list.apply(cols, rows)
}

// detailLines is how many lines the selected warning gets in full.
const warningDetailLines = 4

func (v *warningsView) scroll(w *warnLog, st styles, h int) {
	v.list.scroll(v.listing(w, st), max(1, h-3-warningDetailLines))
}

func (v *warningsView) render(w *warnLog, st styles, width, h int) []string {
	ls := v.listing(w, st)
	out := []string{joinParts(plural(len(w.items), "warning", "warnings"), strconv.Itoa(w.activeCount())+" now",
		st.dim.Render("esc or w closes")), ""}
	if len(w.items) == 0 {
		return fitAll(append(out, "  no warnings"), width)
	}
	out = append(out, v.list.table(ls, max(1, h-3-warningDetailLines)).render(st, width)...)
	if r, ok := v.list.selected(ls); ok {
		i, _ := strconv.Atoi(r.key)
		it := w.items[i]
		out = append(out, "")
		lines := wordWrap(it.text, max(10, width-2))
		if len(lines) > warningDetailLines {
			lines = append(lines[:warningDetailLines-1], "…")
		}
		for _, l := range lines {
			out = append(out, "  "+strings.TrimRight(l, " "))
		}
	}
	return fitAll(out, width)
}
