package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// partitionsView shows one topic's partitions, and under them every
// replica of the selected partition with its log end offset and its lag
// behind the leader (the model is kafka-metadata-quorum describe
// --replication: NodeId, LogEndOffset, Lag, Status). It is the partitions
// tab, and the page a broker's or a transaction's partition opens.
type partitionsView struct {
	topic string
	list  listState
}

// nonPreferredMark follows a leader that is not the preferred replica.
const nonPreferredMark = "*"

func (v *partitionsView) crumb() string { return "Topic " + v.topic }

func (v *partitionsView) listing(e *env, t Topic) listing {
	st := e.st
	moving := e.s.reassigning()
	var rows []row
	alarm := false // a partition is not ok: STATE says which
	for _, p := range t.Partitions {
		leader := intCell(int(p.Leader))
		switch {
		case !p.HasLeader():
			leader = styled("none", st.bad)
		case p.NonPreferred():
			leader.text += nonPreferredMark
			leader = leader.withStyle(st.warn)
		}
		isr := txt(ids(p.ISR))
		switch {
		case p.UnderMinISR(t.MinISR):
			isr = isr.withStyle(st.bad)
		case p.UnderReplicated():
			isr = isr.withStyle(st.warn)
		}
		off := txt(ids(p.Offline))
		if len(p.Offline) > 0 {
			off = off.withStyle(st.bad)
		}
		lag, known := p.MaxLag()
		in := txt("-")
		if r, ok := e.tr.partRate(t.Name, p.ID); ok {
			in = number(siCount(r), r)
		}
		state := partitionState(p, t.MinISR, moving[tp{t.Name, p.ID}], e.probes, st)
		alarm = alarm || state.text != stateOK
		rows = append(rows, row{key: strconv.Itoa(int(p.ID)), cells: []cell{intCell(int(p.ID)), leader, txt(ids(p.Replicas)), isr, off,
			num(p.HW), num(p.LEO), lagCell(lag, known, st), in, state}})
	}
	// At 80 columns STATE goes before the records-in rate when every
	// partition is ok; otherwise it says what the alarm is about and stays,
	// cut short ("under-replicated,non-pre…") if it must.
	stateDrop, inDrop := 2, 1
	if alarm {
		stateDrop, inDrop = 1, 2
	}
	cols := []column{{title: "PARTITION", right: true}, {title: "LEADER", right: true},
		{title: "REPLICAS", flex: true}, {title: "ISR", flex: true}, {title: "OFFLINE", flex: true},
		{title: "HW", right: true}, {title: "LEO", right: true}, {title: "MAX-LAG", right: true},
		{title: "REC-IN/s", right: true, drop: inDrop}, {title: "STATE", flex: true, drop: stateDrop}}
	return v.list.apply(cols, rows)
}

// partitionState names what is wrong with a partition, worst first. A
// leader whose broker the probes find unreachable is named at once: the
// controller only elects another once the broker's ZooKeeper session
// expires, and until then the metadata still shows the partition led.
func partitionState(p Partition, minISR int, move Reassignment, pr probes, st styles) cell {
	var bad, warn []string
	switch {
	case !p.HasLeader():
		bad = append(bad, "offline")
	case leaderUnreachable(p, pr):
		bad = append(bad, "leader-unreachable")
	case p.UnderMinISR(minISR):
		bad = append(bad, "under-min-isr")
	case p.UnderReplicated():
		warn = append(warn, "under-replicated")
	}
	if p.NonPreferred() {
		warn = append(warn, "non-preferred")
	}
	if len(move.Adding)+len(move.Removing) > 0 {
		warn = append(warn, "reassigning")
	}
	switch {
	case len(bad) > 0:
		return styled(strings.Join(append(bad, warn...), ","), st.bad)
	case len(warn) > 0:
		return styled(strings.Join(warn, ","), st.warn)
	}
	return styled(stateOK, st.good)
}

// stateOK is the state of a partition with nothing wrong.
const stateOK = "ok"

func leaderUnreachable(p Partition, pr probes) bool {
	_, down := pr.unreachable(p.Leader)
	return p.HasLeader() && down
}

// heights splits the body: a topic line and the table header, the
// partition rows, then a blank, the detail title, its header and one row
// per replica.
func (v *partitionsView) heights(t Topic, h int) (list, detail int) {
	detail = 3 + t.RF()
	head := 2
	if v.list.filter != "" || v.list.sortCol != 0 || v.list.desc {
		head++ // the filter and sort line
	}
	return max(1, h-head-detail), detail
}

func (v *partitionsView) sync(e *env) {
	if t, ok := e.s.Topic(v.topic); ok {
		v.list.sync(v.listing(e, t))
	}
}

func (v *partitionsView) filterable(*env) *listState { return &v.list }

func (v *partitionsView) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "messages"), k.PrevItem, k.NextItem, k.Filter, k.Sort}
}

// show switches to a topic, keeping the selected partition when the
// topic stays the same; partition, if not negative, is selected.
func (v *partitionsView) show(e *env, topic string, partition int32) {
	if topic != v.topic {
		v.topic, v.list = topic, listState{}
	}
	if partition >= 0 {
		v.list.cur.key = strconv.Itoa(int(partition))
	}
	v.sync(e)
}

// selected is the selected partition.
func (v *partitionsView) selected(e *env) (Topic, Partition, bool) {
	t, ok := e.s.Topic(v.topic)
	if !ok {
		return t, Partition{}, false
	}
	r, ok := v.list.selected(v.listing(e, t))
	if !ok {
		return t, Partition{}, false
	}
	for _, p := range t.Partitions {
		if strconv.Itoa(int(p.ID)) == r.key {
			return t, p, true
		}
	}
	return t, Partition{}, false
}

func (v *partitionsView) update(msg tea.Msg, e *env) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if key.Matches(km, e.k.PrevItem, e.k.NextItem) {
		keys := topicNames(e.s)
		if len(keys) == 0 {
			return nil
		}
		c := cursor{key: v.topic}
		c.sync(keys)
		if key.Matches(km, e.k.PrevItem) {
			c.move(keys, -1)
		} else {
			c.move(keys, 1)
		}
		v.show(e, c.key, -1)
		return nil
	}
	t, ok := e.s.Topic(v.topic)
	if !ok {
		return nil
	}
	if v.list.key(km, e.k, v.listing(e, t)) {
		return nil
	}
	switch {
	case key.Matches(km, e.k.Configs):
		return openConfigs(e, ConfigResource{Name: t.Name})
	case key.Matches(km, e.k.AddPartitions):
		askAddPartitions(e, t)
		return nil
	}
	_, p, ok := v.selected(e)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, e.k.Open, e.k.Messages):
		e.openPage(newBrowserPage(t.Name, p.ID))
	case key.Matches(km, e.k.Elect):
		askElect(e, map[string][]int32{t.Name: {p.ID}}, tp{t.Name, p.ID}.String())
	}
	return nil
}

func topicNames(s *Snapshot) []string {
	keys := make([]string, len(s.Topics))
	for i, t := range s.Topics {
		keys[i] = t.Name
	}
	return keys
}

func (v *partitionsView) scroll(e *env, _, h int) {
	if t, ok := e.s.Topic(v.topic); ok {
		list, _ := v.heights(t, h)
		v.list.scroll(v.listing(e, t), list)
	}
}

func (v *partitionsView) render(e *env, w, h int) []string {
	st := e.st
	t, ok := e.s.Topic(v.topic)
	if !ok {
		if v.topic == "" {
			return []string{"No topics."}
		}
		return fitAll([]string{st.bad.Render(fmt.Sprintf("Topic %s does not exist.", v.topic)), "", "Press [ or ] for another topic."}, w)
	}
	nonPref := ""
	if n := t.NonPreferred(); n > 0 {
		nonPref = st.warn.Render(fmt.Sprintf("%d non-preferred leader%s (%s)", n, map[bool]string{true: "", false: "s"}[n == 1], nonPreferredMark))
	}
	minISR := ""
	if t.MinISR > 0 {
		minISR = fmt.Sprintf("min ISR %d", t.MinISR)
	}
	ls := v.listing(e, t)
	out := []string{joinParts("Topic "+st.title.Render(t.Name), plural(len(t.Partitions), "partition", "partitions"),
		fmt.Sprintf("RF %d", t.RF()), minISR, countIf(t.UnderReplicated(), "under-replicated", st.warn.Render),
		countIf(t.UnderMinISR(), "under min ISR", st.bad.Render), countIf(t.OfflinePartitions(), "offline", st.bad.Render), nonPref)}
	if sum := v.list.summary(ls); sum != "" {
		out = append(out, st.dim.Render(sum))
	}
	list, _ := v.heights(t, h)
	out = append(out, v.list.table(ls, list).render(st, w)...)
	_, p, ok := v.selected(e)
	if !ok {
		return fitAll(append(out, emptyView(len(t.Partitions), "partitions", "partition")), w)
	}
	out = append(out, "")
	out = append(out, replicaLines(p, t.Name, e.s.reassigning()[tp{t.Name, p.ID}], e.probes, st, w)...)
	return fitAll(out, w)
}

// replicaLines is the detail of one partition.
func replicaLines(p Partition, topic string, move Reassignment, pr probes, st styles, w int) []string {
	leader := "none"
	if p.HasLeader() {
		leader = strconv.Itoa(int(p.Leader))
	}
	title := joinParts(st.title.Render(tp{topic, p.ID}.String()), "leader "+leader,
		"epoch "+num(int64(p.LeaderEpoch)).text, "HW "+num(p.HW).text, "LEO "+num(p.LEO).text,
		"log start "+num(p.LogStart).text)
	tb := table{
		cols: []column{{title: "REPLICA", right: true}, {title: "ROLE"}, {title: "ISR"}, {title: "STATE"},
			{title: "LEO", right: true}, {title: "LAG", right: true}},
		sel: -1,
	}
	for i, r := range p.Replicas {
		role := txt("follower")
		switch {
		case !p.HasLeader():
			role = txt("-")
		case r == p.Leader:
			role = styled("leader", st.good)
		}
		inISR := txt("yes")
		if !p.InISR(r) {
			inISR = styled("no", st.warn)
		}
		state := txt("online")
		_, down := pr.unreachable(r)
		switch {
		case p.IsOffline(r):
			state = styled("offline", st.bad)
		case down:
			state = styled("unreachable", st.bad)
		case contains(move.Adding, r):
			state = styled("adding", st.warn)
		case contains(move.Removing, r):
			state = styled("removing", st.warn)
		}
		if i == 0 && p.NonPreferred() {
			role.text += "(preferred)"
		}
		leo, ok := p.ReplicaLEO(r)
		lag, lagOK := p.ReplicaLag(r)
		tb.rows = append(tb.rows, []cell{intCell(int(r)), role, inISR, state, optNum(leo, ok), lagCell(lag, lagOK, st)})
	}
	tb.to = len(tb.rows)
	return append([]string{title}, tb.render(st, w)...)
}
