package tui

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// topicsView lists topics with their health; enter opens one in the
// partitions view.
type topicsView struct {
	cur  cursor
	page int // rows the list showed last, for page up/down
}

func topicKeys(s *Snapshot) []string {
	keys := make([]string, len(s.Topics))
	for i, t := range s.Topics {
		keys[i] = t.Name
	}
	return keys
}

// listHeight leaves room for the summary line, a blank and the header.
func (v *topicsView) listHeight(h int) int { return max(1, h-3) }

func (v *topicsView) sync(s *Snapshot) { v.cur.sync(topicKeys(s)) }

// selected is the selected topic's name, "" when there are none.
func (v *topicsView) selected(s *Snapshot) string {
	if len(s.Topics) == 0 {
		return ""
	}
	return s.Topics[v.cur.idx].Name
}

func (v *topicsView) update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd {
	keys := topicKeys(s)
	if listKeys(msg, k, &v.cur, keys, v.page) {
		return nil
	}
	if key.Matches(msg, k.Open) && len(keys) > 0 {
		name := keys[v.cur.idx]
		return func() tea.Msg { return openTopicMsg{topic: name} }
	}
	return nil
}

func (v *topicsView) scroll(s *Snapshot, _, h int) {
	v.page = v.listHeight(h)
	v.cur.scroll(len(s.Topics), v.page)
}

func (v *topicsView) render(s *Snapshot, st styles, w, h int) []string {
	internal, parts, urp, offline := 0, 0, 0, 0
	anyErr := false
	for _, t := range s.Topics {
		if t.Internal {
			internal++
		}
		parts += len(t.Partitions)
		urp += t.UnderReplicated()
		offline += t.OfflinePartitions()
		anyErr = anyErr || t.Err != ""
	}
	topics := plural(len(s.Topics), "topic", "topics")
	if internal > 0 {
		topics += fmt.Sprintf(" (%d internal)", internal)
	}
	out := []string{joinParts(topics, plural(parts, "partition", "partitions"),
		countIf(urp, "under-replicated", st.warn.Render), countIf(offline, "offline", st.bad.Render)), ""}

	tb := table{
		cols: []column{{title: "TOPIC", flex: true}, {title: "PARTITIONS", right: true}, {title: "RF", right: true},
			{title: "UNDER-REPLICATED", right: true}, {title: "OFFLINE", right: true}, {title: "MAX-LAG", right: true}},
		sel: v.cur.idx,
	}
	if anyErr {
		tb.cols = append(tb.cols, column{title: "ERROR", flex: true})
	}
	for _, t := range s.Topics {
		u, o := t.UnderReplicated(), t.OfflinePartitions()
		lag, known := t.MaxLag()
		row := []cell{txt(t.Name), txt(strconv.Itoa(len(t.Partitions))), txt(strconv.Itoa(t.RF())),
			countCell(u, st.warn), countCell(o, st.bad), lagCell(lag, known, st)}
		if anyErr {
			row = append(row, styled(orDash(t.Err), st.bad))
		}
		tb.rows = append(tb.rows, row)
	}
	tb.from, tb.to = v.cur.window(len(tb.rows), v.listHeight(h))
	out = append(out, tb.render(st, w)...)
	if len(s.Topics) == 0 {
		out = append(out, "  no topics")
	}
	return fitAll(out, w)
}

// countCell highlights a non-zero count of something wrong.
func countCell(n int, st lipgloss.Style) cell {
	if n > 0 {
		return styled(strconv.Itoa(n), st)
	}
	return txt(strconv.Itoa(n))
}

// lagCell renders a replica or consumer lag, highlighted when behind.
func lagCell(lag int64, known bool, st styles) cell {
	if !known {
		return txt("-")
	}
	if lag > 0 {
		return styled(strconv.FormatInt(lag, 10), st.warn)
	}
	return txt(strconv.FormatInt(lag, 10))
}
