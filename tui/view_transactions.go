package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// transactionsView lists the open transactions (the coordinators' view,
// as kafka-transactions describe gives it one id at a time) and, under
// them, the selected one's partitions. A transaction open past its
// timeout is flagged: the coordinator should have aborted it.
type transactionsView struct{ list listState }

func (v *transactionsView) listing(e *env) listing {
	t, st := e.s.Transactions, e.st
	if t == nil {
		return listing{}
	}
	anyErr := false
	for _, x := range t.Open {
		anyErr = anyErr || x.Err != ""
	}
	cols := []column{{title: "TRANSACTIONAL-ID", flex: true}, {title: "STATE"}, {title: "PRODUCER-ID", right: true},
		{title: "EPOCH", right: true}, {title: "PARTITIONS", right: true}, {title: "AGE", right: true}, {title: "TIMEOUT", right: true}}
	if anyErr {
		cols = append(cols, column{title: "ERROR", flex: true})
	}
	var rows []row
	for _, x := range t.Open {
		cells := []cell{txt(x.ID), txnStateCell(x.State, st), num(x.ProducerID), num(int64(x.Epoch)),
			intCell(len(x.Partitions)), ageCell(x, e.s.Taken, st), timeoutCell(x.TimeoutMs)}
		if anyErr {
			cells = append(cells, styled(orDash(x.Err), st.bad))
		}
		rows = append(rows, row{key: x.ID, cells: cells})
	}
	return v.list.apply(cols, rows)
}

// heights splits the body as the groups view does: the summary and a
// blank, the list (at most half of what remains), a blank, the detail.
func (v *transactionsView) heights(ls listing, h int) (list, detail int) {
	return splitListDetail(len(ls.rows), h-5)
}

func (v *transactionsView) selected(e *env) (Transaction, bool) {
	r, ok := v.list.selected(v.listing(e))
	if !ok {
		return Transaction{}, false
	}
	return e.s.Transactions.find(r.key)
}

func (v *transactionsView) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *transactionsView) filterable(*env) *listState { return &v.list }

func (v *transactionsView) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Open, k.Filter, k.Sort}
}

func (v *transactionsView) update(msg tea.Msg, e *env) tea.Cmd {
	km, ok := listKey(msg, e, &v.list, v.listing(e))
	if !ok {
		return nil
	}
	if x, ok := v.selected(e); ok && key.Matches(km, e.k.Open) {
		e.openPage(newTxnPage(x.ID))
	}
	return nil
}

func (v *transactionsView) scroll(e *env, _, h int) {
	ls := v.listing(e)
	list, _ := v.heights(ls, h)
	v.list.scroll(ls, list)
}

func (v *transactionsView) render(e *env, w, h int) []string {
	t, st := e.s.Transactions, e.st
	if t == nil {
		return fitAll([]string{"Transactions: not supported by this cluster.", "",
			"No broker serves ListTransactions and DescribeTransactions (KIP-664,", "Kafka 3.0 and later)."}, w)
	}
	overdue := 0
	for _, x := range t.Open {
		if x.Overdue(e.s.Taken) {
			overdue++
		}
	}
	ls := v.listing(e)
	out := []string{listSummary(&v.list, ls, st, joinParts(plural(len(t.Open), "open transaction", "open transactions"),
		plural(t.Idle, "idle transactional id", "idle transactional ids"),
		countIf(overdue, "past its timeout", st.bad.Render)))}
	if t.Err != "" {
		out = append(out, st.warn.Render(t.Err))
	} else {
		out = append(out, "")
	}
	list, detail := v.heights(ls, h)
	out = append(out, v.list.table(ls, list).render(st, w)...)
	x, ok := v.selected(e)
	if !ok {
		return fitAll(append(out, emptyView(len(t.Open), "open transactions", "transaction")), w)
	}
	out = append(out, "")
	out = append(out, txnDetail(x, e.s.Taken, st, w, detail)...)
	return fitAll(out, w)
}

func (t *Transactions) find(id string) (Transaction, bool) {
	if t == nil {
		return Transaction{}, false
	}
	for _, x := range t.Open {
		if x.ID == id {
			return x, true
		}
	}
	return Transaction{}, false
}

// txnTitle is a transaction's one-line description.
func txnTitle(x Transaction, now time.Time, st styles) string {
	age := "age " + ageCell(x, now, st).text
	if x.Overdue(now) {
		age = st.bad.Render(age + ", past its timeout")
	}
	return joinParts(st.title.Render(x.ID), "producer "+num(x.ProducerID).text+" epoch "+num(int64(x.Epoch)).text,
		"timeout "+timeoutText(x.TimeoutMs), age, "coordinator "+num(int64(x.Coordinator)).text)
}

// txnDetail is the selected transaction: a title line (its state is in
// the selected row above), then its partitions wrapped to the width in at
// most rows-1 lines.
func txnDetail(x Transaction, now time.Time, st styles, w, rows int) []string {
	out := []string{txnTitle(x, now, st)}
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
	c := number(shortDuration(age), age.Seconds())
	if x.Overdue(now) {
		return c.withStyle(st.bad)
	}
	return c
}

func timeoutCell(ms int32) cell {
	if ms < 0 {
		return txt("-")
	}
	return number(timeoutText(ms), float64(ms))
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

// partitionID splits "topic-3" into its topic and partition.
func partitionID(s string) (string, int32, bool) {
	i := strings.LastIndexByte(s, '-')
	if i < 0 {
		return "", 0, false
	}
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil {
		return "", 0, false
	}
	return s[:i], int32(p), true
}
