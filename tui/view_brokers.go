package tui

import (
	"fmt"
	"net"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
)

// brokersView is the cluster summary (modelled on kafka-metadata-quorum
// describe --status) over the broker table; the line under the table
// tells where the selected broker is out of sync.
type brokersView struct {
	cur  cursor
	page int // rows the list showed last, for page up/down
}

// summaryLines is the height of the key/value block above the table.
const summaryLines = 6

func brokerKeys(s *Snapshot) []string {
	keys := make([]string, len(s.Brokers))
	for i, b := range s.Brokers {
		keys[i] = strconv.Itoa(int(b.ID))
	}
	return keys
}

// listHeight leaves room for the summary, a blank, the header, a blank
// and the detail line.
func (v *brokersView) listHeight(h int) int { return max(1, h-summaryLines-4) }

func (v *brokersView) sync(s *Snapshot) { v.cur.sync(brokerKeys(s)) }

func (v *brokersView) update(msg tea.KeyMsg, s *Snapshot, k keyMap) tea.Cmd {
	listKeys(msg, k, &v.cur, brokerKeys(s), v.page)
	return nil
}

func (v *brokersView) scroll(s *Snapshot, _, h int) {
	v.page = v.listHeight(h)
	v.cur.scroll(len(s.Brokers), v.page)
}

func (v *brokersView) render(s *Snapshot, st styles, w, h int) []string {
	sum := s.summary()
	live, offline := 0, 0
	for _, b := range s.Brokers {
		if b.Offline {
			offline++
		} else {
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
	brokers := fmt.Sprintf("%d live", live)
	if offline > 0 {
		brokers += ", " + st.bad.Render(fmt.Sprintf("%d offline", offline))
	}
	parts := strconv.Itoa(sum.partitions)
	if sum.underReplicated > 0 || sum.offline > 0 {
		parts += " (" + joinParts(
			countIf(sum.underReplicated, "under-replicated", st.warn.Render),
			countIf(sum.offline, "offline", st.bad.Render)) + ")"
	}
	lag := "-"
	if sum.maxLagKnown {
		lag = strconv.FormatInt(sum.maxLag, 10)
	}
	out := []string{
		kv("ClusterId", orDash(s.ClusterID)),
		kv("ControllerId", ctrl),
		kv("ControllerEpoch", epoch),
		kv("Brokers", brokers),
		kv("Partitions", parts),
		kv("MaxFollowerLag", lag),
		"",
	}

	outOfISR := map[int32][]string{}
	for _, t := range s.Topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if !p.InISR(r) {
					outOfISR[r] = append(outOfISR[r], tp{t.Name, p.ID}.String())
				}
			}
		}
	}
	tb := table{
		cols: []column{{title: "ID", right: true}, {title: "HOST:PORT", flex: true}, {title: "RACK", flex: true},
			{title: "ROLE"}, {title: "LEADERS", right: true}, {title: "REPLICAS", right: true},
			{title: "OUT-OF-ISR", right: true}, {title: "ADMIN"}},
		sel: v.cur.idx,
	}
	for _, b := range s.Brokers {
		addr, role := "-", txt("broker")
		if !b.Offline {
			addr = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
		switch {
		case b.Offline:
			role = styled("offline", st.bad)
		case b.ID == s.Controller.ID:
			role = styled("controller", st.good)
		}
		ooi := txt(strconv.Itoa(len(outOfISR[b.ID])))
		if len(outOfISR[b.ID]) > 0 {
			ooi = styled(ooi.text, st.warn)
		}
		tb.rows = append(tb.rows, []cell{
			txt(strconv.Itoa(int(b.ID))), txt(addr), txt(orDash(b.Rack)), role,
			txt(strconv.Itoa(sum.leaders[b.ID])), txt(strconv.Itoa(sum.replicas[b.ID])), ooi, adminCell(b, st),
		})
	}
	listH := v.listHeight(h)
	tb.from, tb.to = v.cur.window(len(tb.rows), listH)
	out = append(out, tb.render(st, w)...)
	if len(s.Brokers) == 0 {
		return fitAll(append(out, "  no brokers"), w)
	}
	b := s.Brokers[v.cur.idx]
	name := fmt.Sprintf("Broker %d", b.ID)
	if b.Admin != "" {
		name += " (admin " + b.Admin + ")"
	}
	out = append(out, "")
	switch n := sum.replicas[b.ID]; {
	case b.Offline:
		out = append(out, st.bad.Render(fmt.Sprintf("%s is offline: %s unavailable", name, plural(n, "replica", "replicas"))))
	case len(outOfISR[b.ID]) > 0:
		out = append(out, st.warn.Render(fmt.Sprintf("%s is out of the ISR of %s", name, fewNames(outOfISR[b.ID], 4))))
	default:
		out = append(out, fmt.Sprintf("%s is in sync on all of its %s", name, plural(n, "replica", "replicas")))
	}
	if len(b.Throttled) > 0 {
		out = append(out, st.warn.Render(throttledLine(b)))
	}
	// The status line has room for one warning; the overview lists them
	// all, as far as they fit.
	if len(s.Warnings) > 0 && len(out)+2 < h {
		out = append(out, "", "Warnings:")
		for i, wn := range s.Warnings {
			if len(out) == h-1 && i < len(s.Warnings)-1 {
				out = append(out, st.warn.Render(fmt.Sprintf("  … and %d more", len(s.Warnings)-i)))
				break
			}
			out = append(out, st.warn.Render("  "+wn))
		}
	}
	return fitAll(out, w)
}

// adminCell says whether an admin endpoint answered for the broker; the
// address itself is on the detail line, where it does not cost a column.
func adminCell(b Broker, st styles) cell {
	if b.Admin == "" {
		return txt("-")
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
