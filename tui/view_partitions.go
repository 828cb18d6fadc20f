package tui

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// partitionsView shows one topic's partitions, and under them every
// replica of the selected partition with its log end offset and its lag
// behind the leader (the model is kafka-metadata-quorum describe
// --replication: NodeId, LogEndOffset, Lag, Status).
type partitionsView struct {
	topic string
	cur   cursor
	page  int // rows the list showed last, for page up/down
}

func partitionKeys(t Topic) []string {
	keys := make([]string, len(t.Partitions))
	for i, p := range t.Partitions {
		keys[i] = strconv.Itoa(int(p.ID))
	}
	return keys
}

// heights splits the body: a topic line and the table header, the
// partition rows, then a blank, the detail title, its header and one row
// per replica.
func (v *partitionsView) heights(t Topic, h int) (list, detail int) {
	detail = 3 + t.RF()
	return max(1, h-2-detail), detail
}

func (v *partitionsView) sync(s *Snapshot) {
	if t, ok := s.Topic(v.topic); ok {
		v.cur.sync(partitionKeys(t))
	}
}

// show switches to a topic, keeping the selected partition when the
// topic stays the same.
func (v *partitionsView) show(s *Snapshot, topic string) {
	if topic != v.topic {
		v.topic, v.cur = topic, cursor{}
	}
	v.sync(s)
}

func (v *partitionsView) update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd {
	if key.Matches(msg, k.PrevTopic, k.NextTopic) {
		keys := topicKeys(s)
		if len(keys) == 0 {
			return nil
		}
		c := cursor{key: v.topic}
		c.sync(keys)
		if key.Matches(msg, k.PrevTopic) {
			c.move(keys, -1)
		} else {
			c.move(keys, 1)
		}
		v.show(s, c.key)
		return nil
	}
	if t, ok := s.Topic(v.topic); ok {
		listKeys(msg, k, &v.cur, partitionKeys(t), v.page)
	}
	return nil
}

func (v *partitionsView) scroll(s *Snapshot, _, h int) {
	if t, ok := s.Topic(v.topic); ok {
		v.page, _ = v.heights(t, h)
		v.cur.scroll(len(t.Partitions), v.page)
	}
}

func (v *partitionsView) render(s *Snapshot, st styles, w, h int) []string {
	t, ok := s.Topic(v.topic)
	if !ok {
		if v.topic == "" {
			return []string{"No topics."}
		}
		return fitAll([]string{st.bad.Render(fmt.Sprintf("Topic %s does not exist.", v.topic)), "", "Press [ or ] for another topic."}, w)
	}
	head := joinParts("Topic "+st.title.Render(t.Name), plural(len(t.Partitions), "partition", "partitions"),
		fmt.Sprintf("RF %d", t.RF()), countIf(t.UnderReplicated(), "under-replicated", st.warn.Render),
		countIf(t.OfflinePartitions(), "offline", st.bad.Render))
	out := []string{head}

	tb := table{
		cols: []column{{title: "PARTITION", right: true}, {title: "LEADER", right: true},
			{title: "REPLICAS", flex: true}, {title: "ISR", flex: true}, {title: "OFFLINE", flex: true},
			{title: "HW", right: true}, {title: "LEO", right: true}, {title: "MAX-LAG", right: true}},
		sel: v.cur.idx,
	}
	for _, p := range t.Partitions {
		leader := txt(strconv.Itoa(int(p.Leader)))
		if !p.HasLeader() {
			leader = styled("none", st.bad)
		}
		isr := txt(ids(p.ISR))
		if p.UnderReplicated() {
			isr = styled(isr.text, st.warn)
		}
		off := txt(ids(p.Offline))
		if len(p.Offline) > 0 {
			off = styled(off.text, st.bad)
		}
		lag, known := p.MaxLag()
		tb.rows = append(tb.rows, []cell{txt(strconv.Itoa(int(p.ID))), leader, txt(ids(p.Replicas)), isr, off,
			num(p.HW), num(p.LEO), lagCell(lag, known, st)})
	}
	list, _ := v.heights(t, h)
	tb.from, tb.to = v.cur.window(len(tb.rows), list)
	out = append(out, tb.render(st, w)...)
	if len(t.Partitions) == 0 {
		return fitAll(append(out, "  no partitions"), w)
	}
	out = append(out, "")
	out = append(out, v.replicas(t.Partitions[v.cur.idx], t.Name, st, w)...)
	return fitAll(out, w)
}

// replicas is the detail of one partition.
func (v *partitionsView) replicas(p Partition, topic string, st styles, w int) []string {
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
	for _, r := range p.Replicas {
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
		if p.IsOffline(r) {
			state = styled("offline", st.bad)
		}
		leo, ok := p.ReplicaLEO(r)
		lag, lagOK := p.ReplicaLag(r)
		tb.rows = append(tb.rows, []cell{txt(strconv.Itoa(int(r))), role, inISR, state, optNum(leo, ok), lagCell(lag, lagOK, st)})
	}
	tb.to = len(tb.rows)
	return append([]string{title}, tb.render(st, w)...)
}
