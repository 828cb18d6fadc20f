package tui

import (
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// transactionsView lists the open transactions (the coordinators' view,
// as kafka-transactions describe gives it one id at a time) and, under
// them, the selected one's partitions. A transaction open past its
// timeout is flagged: the coordinator should have aborted it.
type transactionsView struct {
	cur  cursor
	page int // rows the list showed last
}

func txnKeys(s *Snapshot) []string {
	if s.Transactions == nil {
		return nil
	}
	keys := make([]string, len(s.Transactions.Open))
	for i, x := range s.Transactions.Open {
		keys[i] = x.ID
	}
	return keys
}

// heights splits the body as the groups view does: the summary and a
// blank, the list (at most half of what remains), a blank, the detail.
func (v *transactionsView) heights(s *Snapshot, h int) (list, detail int) {
	avail := h - 5
	list = min(max(len(txnKeys(s)), 1), max(1, avail/2))
	return list, max(1, avail-list)
}

func (v *transactionsView) sync(s *Snapshot) { v.cur.sync(txnKeys(s)) }

func (v *transactionsView) update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd {
	listKeys(msg, k, &v.cur, txnKeys(s), v.page)
	return nil
}

func (v *transactionsView) scroll(s *Snapshot, _, h int) {
	v.page, _ = v.heights(s, h)
	v.cur.scroll(len(txnKeys(s)), v.page)
}

func (v *transactionsView) render(s *Snapshot, st styles, w, h int) []string {
	t := s.Transactions
	if t == nil {
		return fitAll([]string{"Transactions: not supported by this cluster.", "",
			"No broker serves ListTransactions and DescribeTransactions (KIP-664,", "Kafka 3.0 and later)."}, w)
	}
	overdue := 0
	for _, x := range t.Open {
		if x.Overdue(s.Taken) {
			overdue++
		}
	}
	out := []string{joinParts(plural(len(t.Open), "open transaction", "open transactions"),
		plural(t.Idle, "idle transactional id", "idle transactional ids"),
		countIf(overdue, "past its timeout", st.bad.Render))}
	if t.Err != "" {
		out = append(out, st.warn.Render(t.Err))
	} else {
		out = append(out, "")
	}
	anyErr := false
	for _, x := range t.Open {
		anyErr = anyErr || x.Err != ""
	}
	tb := table{
		cols: []column{{title: "TRANSACTIONAL-ID", flex: true}, {title: "STATE"}, {title: "PRODUCER-ID", right: true},
			{title: "EPOCH", right: true}, {title: "PARTITIONS", right: true}, {title: "AGE", right: true}, {title: "TIMEOUT", right: true}},
		sel: v.cur.idx,
	}
	if anyErr {
		tb.cols = append(tb.cols, column{title: "ERROR", flex: true})
	}
	for _, x := range t.Open {
		row := []cell{txt(x.ID), txnStateCell(x.State, st), num(x.ProducerID), num(int64(x.Epoch)),
			txt(strconv.Itoa(len(x.Partitions))), ageCell(x, s.Taken, st), txt(timeoutText(x.TimeoutMs))}
		if anyErr {
			row = append(row, styled(orDash(x.Err), st.bad))
		}
		tb.rows = append(tb.rows, row)
	}
	list, detail := v.heights(s, h)
	tb.from, tb.to = v.cur.window(len(tb.rows), list)
	out = append(out, tb.render(st, w)...)
	if len(t.Open) == 0 {
		return fitAll(append(out, "  no open transactions"), w)
	}
	out = append(out, "")
	out = append(out, txnDetail(t.Open[v.cur.idx], s.Taken, st, w, detail)...)
	return fitAll(out, w)
}

// txnDetail is the selected transaction: a title line (its state is in
// the selected row above), then its partitions wrapped to the width in at
// most rows-1 lines.
func txnDetail(x Transaction, now time.Time, st styles, w, rows int) []string {
	age := "age " + ageCell(x, now, st).text
	if x.Overdue(now) {
		age = st.bad.Render(age + ", past its timeout")
	}
	title := joinParts(st.title.Render(x.ID), "producer "+num(x.ProducerID).text+" epoch "+num(int64(x.Epoch)).text,
		"timeout "+timeoutText(x.TimeoutMs), age, "coordinator "+num(int64(x.Coordinator)).text)
	out := []string{title}
	if len(x.Partitions) == 0 {
		return append(out, "  no partitions")
	}
	lines := wrapList(x.Partitions, w-2)
	more := ""
	if shown := visibleRows(len(lines), rows-1); shown < len(lines) {
		left := 0
		for _, l := range lines[shown:] {
			left += len(l)
		}
		more = st.dim.Render("… " + plural(left, "more partition", "more partitions"))
		lines = lines[:shown]
	}
	for i, l := range lines {
		line := "  " + strings.Join(l, ", ")
		if i < len(lines)-1 || more != "" {
			line += ","
		}
		out = append(out, line)
	}
	if more != "" {
		out = append(out, "  "+more)
	}
	return out
}

// wrapList splits items into lines that, joined with ", " and followed by
// a comma, fit in w cells; it breaks only between items.
func wrapList(items []string, w int) [][]string {
	var lines [][]string
	var cur []string
	width := 0
	for _, it := range items {
		iw := ansi.StringWidth(it)
		if len(cur) > 0 && width+2+iw+1 > w {
			lines = append(lines, cur)
			cur, width = nil, 0
		}
		if len(cur) > 0 {
			width += 2
		}
		cur = append(cur, it)
		width += iw
	}
	return append(lines, cur)
}

// ageCell is how long the transaction has been open, in red past its
// timeout.
func ageCell(x Transaction, now time.Time, st styles) cell {
	age, ok := x.Age(now)
	if !ok {
		return txt("-")
	}
	text := shortDuration(age)
	if x.Overdue(now) {
		return styled(text, st.bad)
	}
	return txt(text)
}

func timeoutText(ms int32) string {
	if ms < 0 {
		return "-"
	}
	return shortDuration(time.Duration(ms) * time.Millisecond)
}

// shortDuration is d to the second, without zero trailing units: 2h5m,
// 1m, 30s.
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// txnStateCell colours a transaction state: ending is transient, a fence
// means a producer was replaced.
func txnStateCell(state string, st styles) cell {
	switch state {
	case "PrepareCommit", "PrepareAbort":
		return styled(state, st.warn)
	case "PrepareEpochFence":
		return styled(state, st.bad)
	}
	return txt(orDash(state))
}
