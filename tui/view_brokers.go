package tui

import (
	"fmt"
	"net"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// brokersView is the cluster summary (modelled on kafka-metadata-quorum
// describe --status) over the broker table; the lines under the table
// tell where the selected broker is out of sync, whether it answers, and
// its throughput.
type brokersView struct{ list listState }

// summaryLines is the height of the key/value block above the table.
const summaryLines = 6

func (v *brokersView) listing(e *env) listing {
	s, st := e.s, e.st
	sum := s.summary()
	ooi := outOfISR(s)
	cols := []column{{title: "ID", right: true}, {title: "HOST:PORT", flex: true, keep: 21}, {title: "RACK", flex: true},
		{title: "ROLE"}, {title: "LEADERS", right: true}, {title: "REPLICAS", right: true},
		{title: "OUT-OF-ISR", right: true}, {title: "ADMIN"},
		{title: "BYTES-IN/s", right: true, drop: 1}, {title: "BYTES-OUT/s", right: true, drop: 1},
		{title: "REC-IN/s", right: true, drop: 1}, {title: "REC-OUT/s", right: true, drop: 1}}
	var rows []row
	for _, b := range s.Brokers {
		addr := "-"
		if !b.Offline {
			addr = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
		o := intCell(len(ooi[b.ID]))
		if len(ooi[b.ID]) > 0 {
			o = o.withStyle(st.warn)
		}
		leaders, replicas := intCell(sum.leaders[b.ID]), intCell(sum.replicas[b.ID])
		if e.stale != nil { // the cluster's last word: unknown now
			leaders, replicas, o = txt("-"), txt("-"), txt("-")
		}
		rows = append(rows, row{key: strconv.Itoa(int(b.ID)), cells: []cell{
			intCell(int(b.ID)), txt(addr), txt(orDash(b.Rack)), roleCell(b, s, e.probes, st),
			leaders, replicas, o, adminCell(b, e.stale != nil, st),
			rateCell(e.tr.brokerBytesIn[b.ID], siBytes), rateCell(e.tr.brokerBytesOut[b.ID], siBytes),
			rateCell(e.tr.brokerIn[b.ID], siCount), rateCell(e.tr.brokerOut[b.ID], siCount),
		}})
	}
	return v.list.apply(cols, rows)
}

// roleCell is what a broker is: the controller, a broker, offline (gone
// from Metadata) or unreachable (listed, but not answering its probe).
func roleCell(b Broker, s *Snapshot, p probes, st styles) cell {
	switch _, down := p.unreachable(b.ID); {
	case b.Offline:
		return styled("offline", st.bad)
	case down:
		return styled("unreachable", st.bad)
	case b.ID == s.Controller.ID:
		return styled("controller", st.good)
	}
	return txt("broker")
}

func outOfISR(s *Snapshot) map[int32][]string {
	out := map[int32][]string{}
	for _, t := range s.Topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if !p.InISR(r) {
					out[r] = append(out[r], tp{t.Name, p.ID}.String())
				}
			}
		}
	}
	return out
}

// listHeight leaves room for the summary, a blank, the header, a blank
// and the detail lines.
func (v *brokersView) listHeight(h int) int { return max(1, h-summaryLines-5) }

func (v *brokersView) sync(e *env) { v.list.sync(v.listing(e)) }

func (v *brokersView) filterable(*env) *listState { return &v.list }

func (v *brokersView) hints(k keyMap) []key.Binding {
	return []key.Binding{k.Move, withHelp(k.Open, "partitions"), k.Configs, k.Filter, k.Sort}
}

// selected is the selected broker.
func (v *brokersView) selected(e *env) (Broker, bool) {
	r, ok := v.list.selected(v.listing(e))
	if !ok {
		return Broker{}, false
	}
	id, _ := strconv.Atoi(r.key)
	return e.s.Broker(int32(id))
}

func (v *brokersView) update(msg tea.Msg, e *env) tea.Cmd {
	ls := v.listing(e)
	km, ok := listKey(msg, e, &v.list, ls)
	if !ok {
		return nil
	}
	if key.Matches(km, e.k.Rebalance) {
		return openRebalance(e)
	}
	b, ok := v.selected(e)
	switch {
	case !ok:
	case key.Matches(km, e.k.Open):
		e.openPage(newBrokerPage(b.ID))
	case key.Matches(km, e.k.Configs):
		return openConfigs(e, ConfigResource{Broker: true, Name: strconv.Itoa(int(b.ID))})
	case key.Matches(km, e.k.Elect):
		askElect(e, nil, "the cluster")
	}
	return nil
}

func (v *brokersView) scroll(e *env, _, h int) { v.list.scroll(v.listing(e), v.listHeight(h)) }

func (v *brokersView) render(e *env, w, h int) []string {
	s, st := e.s, e.st
	sum := s.summary()
	live, offline, unreachable := 0, 0, 0
	for _, b := range s.Brokers {
		_, down := e.probes.unreachable(b.ID)
		switch {
		case b.Offline:
			offline++
		case down:
			unreachable++
		default:
			live++
		}
	}
	ctrl := st.bad.Render("none")
	if s.Controller.ID >= 0 {
		ctrl = strconv.Itoa(int(s.Controller.ID))
	}
	epoch := "-"
	if s.Controller.Epoch >= 0 {
		epoch = strconv.Itoa(int(s.Controller.Epoch))
	}
	// Live and offline are the cluster's word (Metadata); unreachable is
	// the probes', which go on while the cluster does not answer.
	brokers := fmt.Sprintf("%d live", live)
	if e.stale != nil {
		brokers = fmt.Sprintf("%d live", live+unreachable)
	}
	if offline > 0 {
		brokers += ", " + st.bad.Render(fmt.Sprintf("%d offline", offline))
	}
	brokers = e.lastValue(brokers)
	if unreachable > 0 {
		brokers += ", " + st.bad.Render(fmt.Sprintf("%d unreachable", unreachable))
		if e.stale != nil {
			brokers += st.bad.Render(" now")
		}
	}
	parts := strconv.Itoa(sum.partitions)
	if sum.underReplicated > 0 || sum.offline > 0 || sum.underMinISR > 0 {
		parts += " (" + joinParts(
			countIf(sum.underReplicated, "under-replicated", st.warn.Render),
			countIf(sum.underMinISR, "under min ISR", st.bad.Render),
			countIf(sum.offline, "offline", st.bad.Render)) + ")"
	}
	// The maximum over the partitions whose followers' LEOs are known; a
	// partition led by a broker no admin endpoint answers for could lag
	// more, so it is counted rather than taken as 0.
	lag := "-"
	if sum.maxLagKnown {
		lag = strconv.FormatInt(sum.maxLag, 10)
		if sum.lagUnknown > 0 {
			lag += st.dim.Render(fmt.Sprintf(" (unknown for %s)", plural(sum.lagUnknown, "partition", "partitions")))
		}
	}
	out := []string{
		kv("ClusterId", orDash(s.ClusterID)),
		kv("ControllerId", e.lastValue(ctrl)),
		kv("ControllerEpoch", e.lastValue(epoch)),
		kv("Brokers", brokers),
		kv("Partitions", e.lastValue(parts)),
		kv("MaxFollowerLag", e.lastValue(lag)),
		"",
	}
	ls := v.listing(e)
	tb := v.list.table(ls, v.listHeight(h))
	out = append(out, tb.render(st, w)...)
	if len(ls.rows) == 0 {
		return fitAll(append(out, emptyView(len(s.Brokers), "brokers", "broker")), w)
	}
	b, _ := v.selected(e)
	out = append(out, "")
	out = append(out, brokerStatus(b, e, w)...)
	if f := v.list.summary(ls); f != "" {
		out = append(out, st.dim.Render(f))
	}
	// A printed frame has no warnings pane: it lists them here, as far
	// as they fit.
	if e.once && len(s.Warnings) > 0 && len(out)+2 < h {
		out = append(out, "", "Warnings:")
		// Each wrapped whole at word breaks; one that no longer fits
		// is counted in "… and N more" instead of cut.
	warnings:
		for i, wn := range s.Warnings {
			lines := wordWrap(wn, max(10, w-4))
			room := h - 1 - len(out) // a line kept for "… and N more"
			if i == len(s.Warnings)-1 {
				room++
			}
			if len(lines) > room {
				out = append(out, st.warn.Render(fmt.Sprintf("  … and %d more", len(s.Warnings)-i)))
				break warnings
			}
			for j, l := range lines {
				indent := "  "
				if j > 0 {
					indent = "    "
				}
				out = append(out, st.warn.Render(indent+l))
			}
		}
	}
	return fitAll(out, w)
}

// brokerStatus is the selected broker's detail: whether it is in sync
// and answers, its throughput, the clients it throttles.
func brokerStatus(b Broker, e *env, w int) []string {
	st, s := e.st, e.s
	sum := s.summary()
	ooi := outOfISR(s)
	name := fmt.Sprintf("Broker %d", b.ID)
	if b.Admin != "" {
		name += " (admin " + b.Admin + ")"
	}
	var out []string
	n := sum.replicas[b.ID]
	p, down := e.probes.unreachable(b.ID)
	switch {
	case b.Offline:
		out = append(out, st.bad.Render(fmt.Sprintf("%s is offline: %s unavailable", name, plural(n, "replica", "replicas"))))
	case down:
		out = append(out, st.bad.Render(fmt.Sprintf("%s is unreachable since %s: %s", name, p.Since.Format("15:04:05"), p.Err)))
	case e.stale != nil:
		out = append(out, st.warn.Render(fmt.Sprintf("%s: state unknown, the cluster has not answered since %s", name, e.stale.since.Format("15:04:05"))))
	case len(ooi[b.ID]) > 0:
		out = append(out, st.warn.Render(fmt.Sprintf("%s is out of the ISR of %s", name, fewNames(ooi[b.ID], 4))))
	default:
		out = append(out, fmt.Sprintf("%s is in sync on all of its %s", name, plural(n, "replica", "replicas")))
	}
	if line := throughputLine(e.tr.brokerBytesIn[b.ID], e.tr.brokerBytesOut[b.ID], e.tr.brokerIn[b.ID], e.tr.brokerOut[b.ID], st, w-2); line != "" {
		out = append(out, "  "+line)
	}
	switch {
	case len(b.Throttled) == 0:
	case e.stale != nil:
		out = append(out, st.dim.Render(fmt.Sprintf("Broker %d throttled (%s, unknown now): %s", b.ID, e.stale.age(), throttledClientsText(b))))
	default:
		out = append(out, st.warn.Render(throttledLine(b)))
	}
	return out
}

// throughputLine is "in 1.2MiB/s ▂▃▅ · out … · 120 rec/s in ▂▃▅ · 80
// rec/s out ▂▃▅" with the parts that are known, "" when none is. Narrower
// than w it goes without the sparklines, then without its last parts: a
// part is shown whole or not at all, never a figure without its label.
func throughputLine(in, out, rec, recOut *series, st styles, w int) string {
	type part struct {
		s    *series
		text func(float64) string
	}
	ps := []part{
		{in, func(v float64) string { return "in " + siBytes(v) + "/s" }},
		{out, func(v float64) string { return "out " + siBytes(v) + "/s" }},
		{rec, func(v float64) string { return siCount(v) + " rec/s in" }},
		{recOut, func(v float64) string { return siCount(v) + " rec/s out" }},
	}
	var plain, sparked []string
	for _, p := range ps {
		if v, ok := p.s.last(); ok {
			plain = append(plain, p.text(v))
			sparked = append(sparked, p.text(v)+" "+st.good.Render(sparkline(p.s.vals, min(10, len(p.s.vals)))))
		}
	}
	if line := joinParts(sparked...); ansi.StringWidth(line) <= w {
		return line
	}
	for n := len(plain); n > 0; n-- {
		if line := joinParts(plain[:n]...); ansi.StringWidth(line) <= w {
			return line
		}
	}
	return ""
}

// adminCell says whether an admin endpoint answered for the broker; the
// address itself is on the detail line, where it does not cost a column.
// While the cluster does not answer, whether it still does is unknown.
func adminCell(b Broker, stale bool, st styles) cell {
	switch {
	case b.Admin == "":
		return txt("-")
	case stale:
		return styled("unknown", st.dim)
	}
	return styled("ok", st.good)
}

// countIf renders "n what" when n > 0.
func countIf(n int, what string, render func(...string) string) string {
	if n == 0 {
		return ""
	}
	return render(fmt.Sprintf("%d %s", n, what))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
