package tui

import (
	"context"
	"time"

	"kafgo/internal/adminapi"
	"kafgo/internal/consumerhealth"
)

// adminHealth reads an endpoint's /v1/consumer-health: the groups that
// broker coordinates. A broker without it (another Kafka, an older kafgo)
// answers 404; its groups' health stays unknown.
func (l *Live) adminHealth(ctx context.Context, base string) (adminapi.ConsumerHealth, error) {
	var doc adminapi.ConsumerHealth
	err := l.getJSON(ctx, base+adminapi.ConsumerHealthPath, &doc)
	return doc, err
}

// mergeHealth adds the coordinators' consumer health to the groups: each
// group is reported by its coordinator only.
func mergeHealth(s *Snapshot, reports []adminReport) {
	byGroup := map[string]*adminapi.GroupHealth{}
	for i := range reports {
		r := &reports[i]
		if r.err != nil || r.healthErr != nil {
			continue
		}
		for j := range r.health.Groups {
			g := &r.health.Groups[j]
			byGroup[g.Group] = g
		}
	}
	for gi := range s.Groups {
		g := &s.Groups[gi]
		h, ok := byGroup[g.ID]
		if !ok {
			continue
		}
		g.Health = &GroupHealth{Status: h.Status, Code: h.StatusCode, MaxTimeLag: time.Duration(h.MaxTimeLagMs) * time.Millisecond}
		parts := map[tp]*adminapi.PartitionHealth{}
		for j := range h.Partitions {
			p := &h.Partitions[j]
			parts[tp{p.Topic, p.Partition}] = p
		}
		for oi := range g.Offsets {
			o := &g.Offsets[oi]
			p, ok := parts[tp{o.Topic, o.Partition}]
			if !ok {
				continue
			}
			ph := &PartitionHealth{Status: p.Status, Code: p.StatusCode}
			if p.TimeLagMs != nil {
				ph.TimeLag, ph.TimeLagKnown = time.Duration(*p.TimeLagMs)*time.Millisecond, true
			}
			if p.EtaMs != nil {
				ph.ETA, ph.ETAKnown = time.Duration(*p.EtaMs)*time.Millisecond, true
				ph.FallingBehind = adminapi.CatchupOf(p.Catchup) == consumerhealth.FallingBehind
			}
			o.Health = ph
		}
	}
}

// healthCell shows a status, sorting by its number (worst last).
func healthCell(status string, code int, st styles) cell {
	c := number(status, float64(code))
	switch {
	case code == int(consumerhealth.OK):
		return c.withStyle(st.good)
	case code == int(consumerhealth.Warning):
		return c.withStyle(st.warn)
	case code > int(consumerhealth.Warning):
		return c.withStyle(st.bad)
	}
	return c
}

// durationCell shows a time lag or ETA, sorting by its length.
func durationCell(d time.Duration, known bool, suffix string) cell {
	if !known {
		return txt("-")
	}
	return number(consumerhealth.FormatDuration(d)+suffix, d.Seconds())
}

// groupHealthCells are the group list's STATUS and TIME-LAG cells.
func groupHealthCells(g Group, st styles) (status, timeLag cell) {
	if g.Health == nil {
		return txt("-"), txt("-")
	}
	return healthCell(g.Health.Status, g.Health.Code, st), durationCell(g.Health.MaxTimeLag, true, "")
}

// offsetHealthCells are an offset row's STATUS, TIME-LAG and ETA cells.
func offsetHealthCells(o GroupOffset, st styles) []cell {
	h := o.Health
	if h == nil {
		return []cell{txt("-"), txt("-"), txt("-")}
	}
	suffix := ""
	if h.FallingBehind {
		suffix = "+"
	}
	return []cell{healthCell(h.Status, h.Code, st), durationCell(h.TimeLag, h.TimeLagKnown, ""), durationCell(h.ETA, h.ETAKnown, suffix)}
}

// anyHealth reports whether any group's health is known: the health
// columns are shown only then.
func anyHealth(gs []Group) bool {
	for _, g := range gs {
		if g.Health != nil {
			return true
		}
	}
	return false
}
