package tui

import (
	"context"
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kafgo/rebalance"
)

// rebalancePage shows the cluster's imbalance by Cruise Control's goals
// and kafgo rebalance's plan to fix it (goals now and after, each broker's
// replicas, leaders and disk before -> after, the data to move), and
// behind enter, after a confirmation, carries the plan out in the
// background, showing its progress.
type rebalancePage struct {
	id      int
	plan    *rebalance.Plan
	err     string
	loading bool
}

type rebalancePlanMsg struct {
	id   int
	plan *rebalance.Plan
	err  error
}

func (m rebalancePlanMsg) pageID() int { return m.id }

// openRebalance opens the page, if the source can plan.
func openRebalance(e *env) tea.Cmd {
	if _, ok := e.src.(Rebalancer); !ok {
		e.flash = "this source cannot plan a rebalance"
		return nil
	}
	e.openPage(&rebalancePage{})
	return nil
}

func (v *rebalancePage) crumb() string { return "Rebalance" }

func (v *rebalancePage) open(e *env, id int) tea.Cmd {
	v.id = id
	return v.reload(e, id)
}

func (v *rebalancePage) reload(e *env, id int) tea.Cmd {
	rb, ok := e.src.(Rebalancer)
	if !ok {
		return nil
	}
	v.loading = true
	ctx, timeout := e.ctx, e.timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		p, err := rb.PlanRebalance(ctx)
		return rebalancePlanMsg{id: id, plan: p, err: err}
	}
}

func (v *rebalancePage) sync(*env)                  {}
func (v *rebalancePage) filterable(*env) *listState { return nil }
func (v *rebalancePage) scroll(*env, int, int)      {}
func (v *rebalancePage) hints(k keyMap) []key.Binding {
	return []key.Binding{withHelp(k.Open, "execute the plan"), withHelp(k.Refresh, "plan again")}
}

func (v *rebalancePage) update(msg tea.Msg, e *env) tea.Cmd {
	switch msg := msg.(type) {
	case rebalancePlanMsg:
		v.loading = false
		v.plan, v.err = msg.plan, ""
		if msg.err != nil {
			v.err = msg.err.Error()
		}
	case pageNote:
		return nil
	case tea.KeyMsg:
		if key.Matches(msg, e.k.Open) {
			v.askExecute(e)
		}
	}
	return nil
}

func (v *rebalancePage) askExecute(e *env) {
	if v.plan == nil || len(v.plan.Changes) == 0 {
		e.flash = "nothing to rebalance"
		return
	}
	if _, running, _ := e.src.(Rebalancer).RebalanceProgress(); running {
		e.flash = "a rebalance is already running"
		return
	}
	p, o := v.plan, rebalanceExec
	q := fmt.Sprintf("Move %s (%s to copy) in batches of %d under a %s/s replication throttle, then elect preferred leaders? It runs in the background until the workbench quits.",
		plural(len(p.Changes), "partition", "partitions"), rebalance.HumanBytes(p.BytesToMove), o.Concurrency, rebalance.HumanBytes(o.Throttle))
	e.ask(confirmPrompt("Rebalance", q, action{desc: "rebalance", page: v.id, run: func(_ context.Context, a Actor) (string, error) {
		rb, ok := a.(Rebalancer)
		if !ok {
			return "", fmt.Errorf("this source cannot rebalance")
		}
		return "started: " + plural(len(p.Batches(o.Concurrency)), "batch", "batches"), rb.StartRebalance(p, o)
	}}))
}

func (v *rebalancePage) render(e *env, w, h int) []string {
	st := e.st
	out := []string{joinParts(st.title.Render("Rebalance"), "Cruise Control's goals, in priority order", st.dim.Render("traffic not measured here"))}
	switch {
	case v.err != "":
		return fitAll(append(out, st.bad.Render(v.err)), w)
	case v.plan == nil:
		return fitAll(append(out, st.dim.Render("planning…")), w)
	}
	p := v.plan
	out = append(out, "")
	goals := table{cols: []column{{title: "GOAL", flex: true}, {title: "KIND"}, {title: "NOW"}, {title: "AFTER"}}, sel: -1}
	for _, g := range p.Goals {
		if !g.Applies {
			continue
		}
		kind := "soft"
		if g.Hard {
			kind = "hard"
		}
		goals.rows = append(goals.rows, []cell{txt(g.Name), txt(kind), goalCell(g.Before, st), goalCell(g.After, st)})
	}
	goals.from, goals.to = 0, len(goals.rows)
	out = append(out, goals.render(st, w)...)
	out = append(out, "")
	brokers := table{cols: []column{{title: "BROKER", right: true}, {title: "RACK"}, {title: "REPLICAS", right: true},
		{title: "LEADERS", right: true}, {title: "DISK", right: true}}, sel: -1}
	for _, b := range p.Before.Brokers {
		before, after := p.BrokerFigures(b.ID)
		arrow := func(x, y int) cell { return number(strconv.Itoa(x)+" → "+strconv.Itoa(y), float64(y)) }
		brokers.rows = append(brokers.rows, []cell{intCell(int(b.ID)), txt(orDash(b.Rack)), arrow(before.Replicas, after.Replicas),
			arrow(before.Leaders, after.Leaders), txt(rebalance.HumanBytes(before.Disk) + " → " + rebalance.HumanBytes(after.Disk))})
	}
	brokers.from, brokers.to = 0, len(brokers.rows)
	out = append(out, brokers.render(st, w)...)
	out = append(out, "")
	if len(p.Changes) == 0 {
		out = append(out, st.good.Render("Balanced: nothing to move."))
	} else {
		out = append(out, fmt.Sprintf("Plan: %s change, %s to copy, %s to move",
			plural(len(p.Changes), "partition", "partitions"), plural(p.Moves(), "replica", "replicas"), rebalance.HumanBytes(p.BytesToMove)),
			st.dim.Render(fmt.Sprintf("(the replica-count goal alone needs at least %s)", rebalance.HumanBytes(p.LowerBound))))
	}
	if log, running, err := e.src.(Rebalancer).RebalanceProgress(); len(log) > 0 || running || err != nil {
		state := st.good.Render("done")
		switch {
		case running:
			state = st.warn.Render("running")
		case err != nil:
			state = st.bad.Render("failed: " + err.Error())
		}
		out = append(out, "", "Execution: "+state)
		room := max(1, h-len(out))
		if len(log) > room {
			log = log[len(log)-room:]
		}
		for _, l := range log {
			out = append(out, "  "+l)
		}
	}
	return fitAll(out, w)
}

func goalCell(v float64, st styles) cell {
	if v == 0 {
		return styled("met", st.good)
	}
	return styled("violated", st.warn)
}
