package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// topicsView lists topics with their health and rates; enter opens one in
// the partitions view.
type topicsView struct{ list listState }

// trendWidth is the width of a sparkline in a table.
const trendWidth = 10

func (v *topicsView) listing(e *env) listing {
	s, st := e.s, e.st
	anyErr, anyBytes := false, false
	for _, t := range s.Topics {
		anyErr = anyErr || t.Err != ""
		if _, ok := e.tr.topicBytesIn[t.Name].last(); ok {
			anyBytes = true
		}
	}
	// At 80 columns the records-in rate stays; the trend and the rest go
	// first, then the replica lag (which the partitions view has), then
	// NON-PREF, unless the header counts non-preferred leaders: a column
	// that says which topics the header's alarm is about stays before
	// any throughput column.
	nonPrefDrop, inDrop := 2, 1
	if s.summary().nonPreferred > 0 {
		nonPrefDrop, inDrop = 1, 2
	}
	cols := []column{{title: "TOPIC", flex: true, keep: 24}, {title: "PARTITIONS", right: true}, {title: "RF", right: true},
		{title: "URP", right: true}, {title: "UNDER-MIN-ISR", right: true}, {title: "OFFLINE", right: true},
		{title: "NON-PREF", right: true, drop: nonPrefDrop}, {title: "MAX-LAG", right: true, drop: 3}}
	if anyErr {
		cols = append(cols, column{title: "ERROR", flex: true})
	}
	cols = append(cols, column{title: "REC-IN/s", right: true, drop: inDrop}, column{title: "TREND", drop: 5},
		column{title: "CONSUMED/s", right: true, drop: 4})
	if anyBytes {
		cols = append(cols, column{title: "BYTES-IN/s", right: true, drop: 4}, column{title: "BYTES-OUT/s", right: true, drop: 4})
	}
	var rows []row
	for _, t := range s.Topics {
		lag, known := t.MaxLag()
		cells := []cell{txt(t.Name), intCell(len(t.Partitions)), intCell(t.RF()),
			countCell(t.UnderReplicated(), st.warn), countCell(t.UnderMinISR(), st.bad), countCell(t.OfflinePartitions(), st.bad),
			countCell(t.NonPreferred(), st.warn), lagCell(lag, known, st)}
		if t.MinISR == 0 {
			cells[4] = txt("-") // min.insync.replicas unknown
		}
		if anyErr {
			cells = append(cells, styled(orDash(t.Err), st.bad))
		}
		cells = append(cells, rateCell(e.tr.topicIn[t.Name], siCount), trendCell(e.tr.topicIn[t.Name], trendWidth),
			rateCell(e.tr.topicOut[t.Name], siCount))
		if anyBytes {
			cells = append(cells, rateCell(e.tr.topicBytesIn[t.Name], siBytes), rateCell(e.tr.topicBytesOut[t.Name], siBytes))
		}
		rows = append(rows, row{key: t.Name, cells: cells})
	}
	return v.list.apply(cols, rows)
}

// listHeight leaves room for the summary line, a blank and the header.
func (v *topicsView) listHeight(h int) int { return max(1, h-3) }

func (v *topicsView) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *topicsView) filterable(*env) *listState { return &v.list }

func (v *topicsView) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, k.Open, k.Messages, k.Configs, k.Filter, k.Sort}
}

// selected is the selected topic's name, "" when there are none.
func (v *topicsView) selected(e *env) string {
	r, _ := v.list.selected(v.listing(e))
	return r.key
}

func (v *topicsView) update(msg tea.Msg, e *env) tea.Cmd {
	km, ok := listKey(msg, e, &v.list, v.listing(e))
	if !ok {
		return nil
	}
	if key.Matches(km, e.k.CreateTopic) {
		askCreateTopic(e)
		return nil
	}
	name := v.selected(e)
	t, ok := e.s.Topic(name)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, e.k.Open):
		e.showTopic(name, -1)
	case key.Matches(km, e.k.Messages):
		e.openPage(newBrowserPage(name, firstPartition(t)))
	case key.Matches(km, e.k.Configs):
		return openConfigs(e, ConfigResource{Name: name})
	case key.Matches(km, e.k.DeleteTopic):
		askDeleteTopic(e, name)
	case key.Matches(km, e.k.AddPartitions):
		askAddPartitions(e, t)
	case key.Matches(km, e.k.Elect):
		askElect(e, map[string][]int32{name: nil}, "topic "+name)
	}
	return nil
}

func firstPartition(t Topic) int32 {
	if len(t.Partitions) == 0 {
		return 0
	}
	return t.Partitions[0].ID
}

func (v *topicsView) scroll(e *env, _, h int) { v.list.scroll(v.listing(e), v.listHeight(h)) }

func (v *topicsView) render(e *env, w, h int) []string {
	s, st := e.s, e.st
	internal, parts, urp, offline := 0, 0, 0, 0
	for _, t := range s.Topics {
		if t.Internal {
			internal++
		}
		parts += len(t.Partitions)
		urp += t.UnderReplicated()
		offline += t.OfflinePartitions()
	}
	topics := plural(len(s.Topics), "topic", "topics")
	if internal > 0 {
		topics += fmt.Sprintf(" (%d internal)", internal)
	}
	ls := v.listing(e)
	out := []string{listSummary(&v.list, ls, st, joinParts(topics, plural(parts, "partition", "partitions"),
		countIf(urp, "under-replicated", st.warn.Render), countIf(offline, "offline", st.bad.Render))), ""}
	out = append(out, v.list.table(ls, v.listHeight(h)).render(st, w)...)
	if len(ls.rows) == 0 {
		out = append(out, emptyView(len(s.Topics), "topics", "topic"))
	}
	return fitAll(out, w)
}

// countCell highlights a non-zero count of something wrong.
func countCell(n int, st lipgloss.Style) cell {
	c := intCell(n)
	if n > 0 {
		return c.withStyle(st)
	}
	return c
}

// lagCell renders a replica or consumer lag, highlighted when behind.
func lagCell(lag int64, known bool, st styles) cell {
	c := optNum(lag, known)
	if known && lag > 0 {
		return c.withStyle(st.warn)
	}
	return c
}
