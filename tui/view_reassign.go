package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// reassignView lists the partition reassignments in progress (what
// kafka-reassign-partitions --list shows) with their progress: how far
// the adding replicas are behind the leader, in offsets (the leader's
// view of their log end offsets, with --admin) and bytes (DescribeLogDirs),
// and whether replication throttles pace them.
type reassignView struct{ list listState }

func (v *reassignView) listing(e *env) listing {
	r, st := e.s.Reassignments, e.st
	if r == nil {
		return listing{}
	}
	parts := map[tp]Partition{}
	for _, t := range e.s.Topics {
		for _, p := range t.Partitions {
			parts[tp{t.Name, p.ID}] = p
		}
	}
	// What a move is (topic, partition, replicas, adding, removing) and
	// how far it has to go stay at 80 columns; the leader, the throttle
	// mark (the summary line names the throttles) and the ISR go first,
	// and of the two progress figures the one in offsets, unless the
	// bytes are unknown (DescribeLogDirs failed).
	bytesKnown := false
	for _, m := range r.Moves {
		bytesKnown = bytesKnown || m.BytesLeft >= 0
	}
	offsetsDrop, bytesDrop := 5, 0
	if !bytesKnown {
		offsetsDrop, bytesDrop = 0, 5
	}
	cols := []column{{title: "TOPIC", flex: true}, {title: "PARTITION", right: true}, {title: "REPLICAS", flex: true},
		{title: "ADDING", flex: true}, {title: "REMOVING", flex: true}, {title: "LEADER", right: true, drop: 4},
		{title: "ISR", flex: true, drop: 2}, {title: "THROTTLED", drop: 3},
		{title: "OFFSETS-LEFT", right: true, drop: offsetsDrop}, {title: "BYTES-LEFT", right: true, drop: bytesDrop}}
	var rows []row
	for _, m := range r.Moves {
		p := parts[tp{m.Topic, m.Partition}]
		leader := txt("-")
		if p.HasLeader() {
			leader = intCell(int(p.Leader))
		}
		throttled := txt("no")
		if m.Throttled {
			throttled = styled("yes", st.warn)
		}
		// Offsets left: the furthest behind of the adding replicas.
		var left int64
		known := len(m.Adding) > 0
		for _, a := range m.Adding {
			l, ok := p.ReplicaLag(a)
			known = known && ok
			left = max(left, l)
		}
		bytes := txt("-")
		if m.BytesLeft >= 0 {
			bytes = number(siBytes(float64(m.BytesLeft)), float64(m.BytesLeft))
		}
		rows = append(rows, row{key: tp{m.Topic, m.Partition}.String(), cells: []cell{txt(m.Topic), intCell(int(m.Partition)),
			txt(ids(m.Replicas)), styled(ids(m.Adding), st.good), styled(ids(m.Removing), st.warn), leader, txt(ids(p.ISR)),
			throttled, optNum(left, known), bytes}})
	}
	return v.list.apply(cols, rows)
}

// head is what goes above the table: the summary, the throttles (each
// line wrapped to the width, so no rate is cut) and the error or a blank.
func (v *reassignView) head(e *env, ls listing, w int) []string {
	r, st := e.s.Reassignments, e.st
	out := []string{listSummary(&v.list, ls, st, plural(len(r.Moves), "partition reassigning", "partitions reassigning"))}
	var lines []string
	if r.Leftover() {
		// Each on a line of its own, not packed with the throttles.
		lines = append(lines, leftoverHint...)
	}
	lines = append(lines, wrapParts(throttleParts(r), w-2)...)
	for _, l := range lines {
		if r.Leftover() {
			l = st.warn.Render(l)
		}
		out = append(out, "  "+l)
	}
	if r.Err != "" {
		return append(out, st.warn.Render(r.Err))
	}
	return append(out, "")
}

// listHeight leaves room for the head and the table header.
func (v *reassignView) listHeight(e *env, ls listing, w, h int) int {
	return max(1, h-len(v.head(e, ls, w))-1)
}

func (v *reassignView) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *reassignView) filterable(*env) *listState { return &v.list }

func (v *reassignView) hints(k keyMap) []key.Binding { return partitionListHints(k) }

func (v *reassignView) update(msg tea.Msg, e *env) tea.Cmd {
	return updatePartitionList(msg, e, &v.list, v.listing(e))
}

func (v *reassignView) scroll(e *env, w, h int) {
	if e.s.Reassignments == nil {
		return
	}
	ls := v.listing(e)
	v.list.scroll(ls, v.listHeight(e, ls, w, h))
}

func (v *reassignView) render(e *env, w, h int) []string {
	r, st := e.s.Reassignments, e.st
	if r == nil {
		return fitAll([]string{"Reassignments: not supported by this cluster.", "",
			"No broker serves ListPartitionReassignments (KIP-455, Kafka 2.4 and later)."}, w)
	}
	ls := v.listing(e)
	out := v.head(e, ls, w)
	out = append(out, v.list.table(ls, v.listHeight(e, ls, w, h)).render(st, w)...)
	if len(ls.rows) == 0 {
		out = append(out, emptyView(len(r.Moves), "reassignments in progress", "reassignment"))
	}
	return fitAll(out, w)
}

// leftoverHint says that a throttle is left with nothing moving, and how
// to clear it.
var leftoverHint = []string{"replication throttle left set, nothing is moving", "clear it: " + clearByVerify, "or: " + clearByConfigs}

// throttleParts describe the replication throttles: "throttled: brokers
// 1,2 leader 10MiB/s follower 10MiB/s", "broker 3 leader 1MiB/s" (brokers
// with the same rates together), "throttled replicas: topic payments";
// "no replication throttle" when none is set.
func throttleParts(r *Reassignments) []string {
	ts := r.Throttles
	if len(ts) == 0 && len(r.ThrottledTopics) == 0 {
		return []string{"no replication throttle"}
	}
	type rates struct{ leader, follower int64 }
	var order []rates
	brokers := map[rates][]int32{}
	for _, t := range ts {
		r := rates{t.Leader, t.Follower}
		if _, seen := brokers[r]; !seen {
			order = append(order, r)
		}
		brokers[r] = append(brokers[r], t.Broker)
	}
	var parts []string
	for i, rt := range order {
		s := namedIDs("broker", "brokers", brokers[rt])
		if rt.leader >= 0 {
			s += " leader " + siBytes(float64(rt.leader)) + "/s"
		}
		if rt.follower >= 0 {
			s += " follower " + siBytes(float64(rt.follower)) + "/s"
		}
		if i == 0 {
			s = "throttled: " + s
		}
		parts = append(parts, s)
	}
	if n := len(r.ThrottledTopics); n > 0 {
		parts = append(parts, "throttled replicas: "+map[bool]string{true: "topic ", false: "topics "}[n == 1]+
			fewNames(append([]string(nil), r.ThrottledTopics...), 5))
	}
	return parts
}
