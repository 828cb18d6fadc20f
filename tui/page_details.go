package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// chartHeight is the height of a page's trend chart.
const chartHeight = 3

// chartLines is a captioned chart of a series, nothing when it holds no
// known value.
func chartLines(caption string, s *series, format func(float64) string, st styles, w int) []string {
	vals := s.values()
	peak, known := 0.0, false
	for _, v := range vals {
		if !math.IsNaN(v) {
			peak, known = math.Max(peak, v), true
		}
	}
	if !known {
		return nil
	}
	last, ok := s.last()
	if !ok {
		last = math.NaN() // "-": the latest sample is unknown
	}
	out := []string{st.dim.Render(fmt.Sprintf("%s: now %s, peak %s over the last %s", caption, format(last), format(peak), plural(len(vals), "refresh", "refreshes")))}
	for _, l := range chart(vals, min(w-2, trendLen), chartHeight) {
		out = append(out, "  "+st.good.Render(l))
	}
	return out
}

// brokerPage is one broker: whether it is in sync and answers, its
// throughput, and the partitions it holds as leader or follower.
type brokerPage struct {
	id   int32
	list listState
}

func newBrokerPage(id int32) *brokerPage { return &brokerPage{id: id} }

func (v *brokerPage) crumb() string { return fmt.Sprintf("Broker %d", v.id) }

func (v *brokerPage) listing(e *env) listing {
	st := e.st
	cols := []column{{title: "TOPIC", flex: true}, {title: "PARTITION", right: true}, {title: "ROLE"},
		{title: "LEADER", right: true}, {title: "IN-ISR"}, {title: "LEO", right: true}, {title: "LAG", right: true},
		{title: "STATE", drop: 1}}
	moving := e.s.reassigning()
	var rows []row
	for _, t := range e.s.Topics {
		for _, p := range t.Partitions {
			if !contains(p.Replicas, v.id) {
				continue
			}
			role := txt("follower")
			if p.Leader == v.id {
				role = styled("leader", st.good)
			}
			leader := txt("none")
			if p.HasLeader() {
				leader = intCell(int(p.Leader))
			}
			in := txt("yes")
			if !p.InISR(v.id) {
				in = styled("no", st.warn)
			}
			leo, ok := p.ReplicaLEO(v.id)
			lag, lagOK := p.ReplicaLag(v.id)
			rows = append(rows, row{key: tp{t.Name, p.ID}.String(), cells: []cell{txt(t.Name), intCell(int(p.ID)), role,
				leader, in, optNum(leo, ok), lagCell(lag, lagOK, st), partitionState(p, t.MinISR, moving[tp{t.Name, p.ID}], e.probes, st)}})
		}
	}
	return v.list.apply(cols, rows)
}

func (v *brokerPage) head(e *env, w int) []string {
	b, ok := e.s.Broker(v.id)
	if !ok {
		return []string{e.st.bad.Render(fmt.Sprintf("Broker %d is not in the cluster.", v.id))}
	}
	out := brokerStatus(b, e, w)
	// Bytes where the admin endpoint counts them, else records, which any
	// cluster gives.
	graph := chartLines("bytes in/s", e.tr.brokerBytesIn[v.id], siBytes, e.st, w)
	if graph == nil {
		graph = chartLines("records in/s (partitions it leads)", e.tr.brokerIn[v.id], siCount, e.st, w)
	}
	return append(out, graph...)
}

func (v *brokerPage) listHeight(e *env, w, h int) int { return max(1, h-len(v.head(e, w))-3) }

func (v *brokerPage) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *brokerPage) filterable(*env) *listState { return &v.list }

func (v *brokerPage) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "partition"), k.Configs, k.Filter, k.Sort}
}

func (v *brokerPage) update(msg tea.Msg, e *env) tea.Cmd {
	ls := v.listing(e)
	km, ok := listKey(msg, e, &v.list, ls)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, e.k.Configs):
		return openConfigs(e, ConfigResource{Broker: true, Name: strconv.Itoa(int(v.id))})
	case key.Matches(km, e.k.Open):
		if r, ok := v.list.selected(ls); ok {
			openPartition(e, r.key)
		}
	}
	return nil
}

func (v *brokerPage) scroll(e *env, w, h int) { v.list.scroll(v.listing(e), v.listHeight(e, w, h)) }

func (v *brokerPage) render(e *env, w, h int) []string {
	st := e.st
	out := v.head(e, w)
	ls := v.listing(e)
	// Leadership over all of its partitions, whatever the filter shows
	// (the filter's own note says how many are shown).
	return pageList(out, &v.list, ls, st, joinParts(plural(ls.all, "partition", "partitions"),
		fmt.Sprintf("%d led here", e.s.summary().leaders[v.id]), "c: configs"), v.listHeight(e, w, h), w, "  no partitions")
}

// groupPage is one consumer group: its lag over time, its members and
// what is assigned to them, and its lag on every partition.
type groupPage struct {
	id   string
	list listState
}

func newGroupPage(id string) *groupPage { return &groupPage{id: id} }

func (v *groupPage) crumb() string { return "Group " + v.id }

// maxMemberRows bounds the members block, so the offsets keep room.
const maxMemberRows = 5

func (v *groupPage) listing(e *env) listing {
	g, _ := e.s.Group(v.id)
	cols := append(offsetColumns(), column{title: "MEMBER-ID", flex: true, drop: 1})
	var rows []row
	for _, o := range g.Offsets {
		rows = append(rows, row{key: tp{o.Topic, o.Partition}.String(), cells: append(offsetCells(o, e.st), txt(orDash(o.MemberID)))})
	}
	return v.list.apply(cols, rows)
}

func (v *groupPage) head(e *env, w int) []string {
	st := e.st
	g, ok := e.s.Group(v.id)
	if !ok {
		return []string{st.bad.Render(fmt.Sprintf("Group %s no longer exists.", v.id))}
	}
	out := []string{groupTitle(g, st)}
	if g.Err != "" {
		out = append(out, st.bad.Render(g.Err))
	}
	out = append(out, chartLines("lag", e.tr.groupLag[v.id], siCount, st, w)...)
	tb := table{cols: []column{{title: "MEMBER-ID", flex: true}, {title: "CLIENT-ID", flex: true}, {title: "HOST", flex: true},
		{title: "ASSIGNED", right: true}, {title: "PARTITIONS", flex: true}}, sel: -1}
	for _, m := range g.Members {
		tb.rows = append(tb.rows, []cell{txt(m.ID), txt(orDash(m.ClientID)), txt(orDash(m.Host)), intCell(len(m.Assigned)),
			txt(compactPartitions(m.Assigned))})
	}
	tb.to = min(len(tb.rows), maxMemberRows)
	out = append(out, "")
	if len(g.Members) == 0 {
		out = append(out, "No members: the group is empty (R resets its offsets).")
	} else {
		out = append(out, tb.render(st, w)...)
	}
	return out
}

// compactPartitions writes "orders-0,1,2 payments-1" for a sorted list
// of "topic-p".
func compactPartitions(parts []string) string {
	var out []string
	last := ""
	for _, s := range parts {
		topic, p, ok := partitionID(s)
		if !ok {
			continue
		}
		if topic == last {
			out[len(out)-1] += "," + strconv.Itoa(int(p))
			continue
		}
		out = append(out, s)
		last = topic
	}
	return strings.Join(out, " ")
}

func (v *groupPage) listHeight(e *env, w, h int) int { return max(1, h-len(v.head(e, w))-3) }

func (v *groupPage) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *groupPage) filterable(*env) *listState { return &v.list }

func (v *groupPage) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "messages"), k.ResetOffsets, k.Filter, k.Sort}
}

func (v *groupPage) update(msg tea.Msg, e *env) tea.Cmd {
	ls := v.listing(e)
	km, ok := listKey(msg, e, &v.list, ls)
	if !ok {
		return nil
	}
	g, ok := e.s.Group(v.id)
	switch {
	case !ok:
	case key.Matches(km, e.k.ResetOffsets):
		askResetOffsets(e, g)
	case key.Matches(km, e.k.Open, e.k.Messages):
		r, ok := v.list.selected(ls)
		if !ok {
			return nil
		}
		topic, p, _ := partitionID(r.key)
		bp := newBrowserPage(topic, p)
		for _, o := range g.Offsets {
			if o.Topic == topic && o.Partition == p && o.Committed >= 0 {
				// From the group's position: what it has yet to read.
				bp.pos = Position{Kind: AtOffset, Offset: o.Committed}
			}
		}
		e.openPage(bp)
	}
	return nil
}

func (v *groupPage) scroll(e *env, w, h int) { v.list.scroll(v.listing(e), v.listHeight(e, w, h)) }

func (v *groupPage) render(e *env, w, h int) []string {
	out := v.head(e, w)
	ls := v.listing(e)
	return pageList(out, &v.list, ls, e.st, plural(ls.all, "partition", "partitions")+" (enter: messages from the committed offset)",
		v.listHeight(e, w, h), w, "  no committed offsets")
}

// txnPage is one open transaction and the partitions it has written to.
type txnPage struct {
	id   string
	list listState
}

func newTxnPage(id string) *txnPage { return &txnPage{id: id} }

func (v *txnPage) crumb() string { return "Transaction " + v.id }

func (v *txnPage) listing(e *env) listing {
	x, _ := e.s.Transactions.find(v.id)
	cols := []column{{title: "TOPIC", flex: true}, {title: "PARTITION", right: true}, {title: "LEADER", right: true},
		{title: "HW", right: true}, {title: "LEO", right: true}}
	var rows []row
	for _, s := range x.Partitions {
		topic, id, ok := partitionID(s)
		if !ok {
			continue
		}
		p := Partition{Leader: -1, HW: -1, LEO: -1}
		if t, ok := e.s.Topic(topic); ok {
			for _, q := range t.Partitions {
				if q.ID == id {
					p = q
				}
			}
		}
		leader := txt("none")
		if p.HasLeader() {
			leader = intCell(int(p.Leader))
		}
		rows = append(rows, row{key: s, cells: []cell{txt(topic), intCell(int(id)), leader, num(p.HW), num(p.LEO)}})
	}
	return v.list.apply(cols, rows)
}

func (v *txnPage) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *txnPage) filterable(*env) *listState { return &v.list }

func (v *txnPage) hints(k keyMap) []key.Binding { return partitionListHints(k) }

func (v *txnPage) update(msg tea.Msg, e *env) tea.Cmd {
	return updatePartitionList(msg, e, &v.list, v.listing(e))
}

func (v *txnPage) scroll(e *env, _, h int) { v.list.scroll(v.listing(e), max(1, h-5)) }

func (v *txnPage) render(e *env, w, h int) []string {
	st := e.st
	x, ok := e.s.Transactions.find(v.id)
	if !ok {
		return fitAll([]string{fmt.Sprintf("Transaction %s is no longer open.", v.id)}, w)
	}
	ls := v.listing(e)
	head := []string{txnTitle(x, e.s.Taken, st), "state " + txnStateCell(x.State, st).text}
	return pageList(head, &v.list, ls, st, plural(ls.all, "partition", "partitions"), max(1, h-5), w, "  no partitions")
}
