package rebalance

import (
	"cmp"
	"slices"
)

// maxActions bounds each goal's optimization, so a plan always ends.
const maxActions = 100000

// planner optimizes a model goal by goal, each goal's actions checked
// against the goals before it.
type planner struct {
	m     *Model
	goals []Goal // those that apply, in priority order
}

// action is one change the planner tries: moves of replicas between
// brokers (one, or two for a swap) or a new preferred leader.
type action struct {
	p        *Partition
	from, to int32
	// q, for a swap: the partition whose replica on to goes to from.
	q *Partition
	// lead, for a leadership change: the index of p's replica that
	// becomes the first.
	lead int
}

// apply performs a and returns how to undo it.
func (pl *planner) apply(a action) (undo func()) {
	m := pl.m
	if a.lead > 0 {
		old := slices.Clone(a.p.Replicas)
		r := slices.Clone(old)
		r[0], r[a.lead] = r[a.lead], r[0]
		m.setReplicas(a.p, r)
		return func() { m.setReplicas(a.p, old) }
	}
	oldP := slices.Clone(a.p.Replicas)
	m.setReplicas(a.p, replaced(oldP, a.from, a.to))
	if a.q == nil {
		return func() { m.setReplicas(a.p, oldP) }
	}
	oldQ := slices.Clone(a.q.Replicas)
	m.setReplicas(a.q, replaced(oldQ, a.to, a.from))
	return func() { m.setReplicas(a.q, oldQ); m.setReplicas(a.p, oldP) }
}

// replaced is rs with broker from replaced by to, in the same position.
func replaced(rs []int32, from, to int32) []int32 {
	out := slices.Clone(rs)
	for i, r := range out {
		if r == from {
			out[i] = to
		}
	}
	return out
}

// violations measures every goal up to and including goal k.
func (pl *planner) violations(k int) []float64 {
	v := make([]float64, k+1)
	for i := 0; i <= k; i++ {
		v[i] = pl.goals[i].Violation(pl.m)
	}
	return v
}

// try applies a, and keeps it when it lowers goal k's violation without
// raising any earlier goal's; it returns the decrease (0: undone).
func (pl *planner) try(a action, k int, before []float64) float64 {
	undo := pl.apply(a)
	after := pl.violations(k)
	for i := 0; i < k; i++ {
		if after[i] > before[i]+1e-9 {
			undo()
			return 0
		}
	}
	if gain := before[k] - after[k]; gain > 1e-9 {
		return gain
	}
	undo()
	return 0
}

// canMove reports whether p's replica on from may go to to: the target
// takes replicas and does not hold p already; with --add-broker only new
// brokers receive and only old ones give, with --remove-broker only
// removed ones give.
func (pl *planner) canMove(p *Partition, from, to int32, adding, removing bool) bool {
	dst := pl.m.byID[to]
	if dst == nil || dst.Removed || slices.Contains(p.Replicas, to) || from == to {
		return false
	}
	src := pl.m.byID[from]
	if p.Pinned && (src == nil || !src.Removed) {
		return false
	}
	if adding && (!dst.New || (src != nil && src.New)) {
		return false
	}
	if removing && src != nil && !src.Removed {
		return false
	}
	return true
}

// optimize runs every goal in turn.
func (pl *planner) optimize(adding, removing bool) {
	for k := range pl.goals {
		g := pl.goals[k]
		switch {
		case g.Name == RackAware:
			pl.optimizeRacks(k, adding, removing)
		case g.Name == LeaderDistribution:
			pl.optimizeLeaders(k)
		case g.metric != nil:
			pl.optimizeDistribution(k, adding, removing)
		default:
			pl.optimizeShed(k, adding, removing)
		}
	}
}

// brokersOf lists the brokers of the model holding replicas of p.
func partitionsOn(m *Model, id int32) []*Partition {
	var out []*Partition
	for _, p := range m.Partitions {
		if slices.Contains(p.Replicas, id) {
			out = append(out, p)
		}
	}
	return out
}

// bySizeThenName orders partitions smallest first: moving them costs
// least.
func bySizeThenName(ps []*Partition) {
	slices.SortStableFunc(ps, func(a, b *Partition) int { return cmp.Compare(a.Size, b.Size) })
}

// optimizeRacks moves, for each partition short of racks, a replica that
// shares its rack to a broker in a rack the partition lacks.
func (pl *planner) optimizeRacks(k int, adding, removing bool) {
	m := pl.m
	for _, p := range m.Partitions {
		for step := 0; step < len(p.Replicas); step++ {
			before := pl.violations(k)
			if before[k] == 0 {
				return
			}
			used := map[string]int{}
			for _, r := range p.Replicas {
				used[m.rackOf(r)]++
			}
			moved := false
			for _, from := range p.Replicas {
				if rack := m.rackOf(from); rack != "" && used[rack] < 2 {
					continue
				}
				for _, to := range pl.destinations(func(l *load) float64 { return float64(l.replicas) }) {
					if rack := m.rackOf(to); rack == "" || used[rack] > 0 || !pl.canMove(p, from, to, adding, removing) {
						continue
					}
					if pl.try(action{p: p, from: from, to: to}, k, before) > 0 {
						moved = true
						break
					}
				}
				if moved {
					break
				}
			}
			if !moved {
				break
			}
		}
	}
}

// destinations lists the eligible brokers, least loaded by metric first.
func (pl *planner) destinations(metric func(*load) float64) []int32 {
	var ids []int32
	for _, b := range pl.m.eligible() {
		ids = append(ids, b.ID)
	}
	slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(metric(pl.m.load[a]), metric(pl.m.load[b])) })
	return ids
}

// sources lists every broker, most loaded by metric first; removed
// brokers come first of all.
func (pl *planner) sources(metric func(*load) float64) []int32 {
	var ids []int32
	for _, b := range pl.m.Brokers {
		ids = append(ids, b.ID)
	}
	slices.SortStableFunc(ids, func(a, b int32) int {
		ra, rb := pl.m.byID[a].Removed, pl.m.byID[b].Removed
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return cmp.Compare(metric(pl.m.load[b]), metric(pl.m.load[a]))
	})
	return ids
}

// optimizeShed serves the capacity goals: it moves replicas, smallest
// first, off brokers over a limit, onto the least loaded brokers that
// take them.
func (pl *planner) optimizeShed(k int, adding, removing bool) {
	replicas := func(l *load) float64 { return float64(l.replicas) }
	for n := 0; n < maxActions; n++ {
		before := pl.violations(k)
		if before[k] == 0 || !pl.bestMove(k, before, replicas, true, adding, removing) {
			return
		}
	}
}

// optimizeDistribution balances one per-broker figure: single moves from
// the most to the least loaded brokers while any helps, then swaps.
func (pl *planner) optimizeDistribution(k int, adding, removing bool) {
	g := pl.goals[k]
	for n := 0; n < maxActions; n++ {
		before := pl.violations(k)
		if before[k] == 0 {
			return
		}
		if pl.bestMove(k, before, g.metric, g.counts, adding, removing) {
			continue
		}
		if adding || removing || !pl.bestSwap(k, before, g.metric) {
			return
		}
	}
}

// bestMove tries single replica moves from the most loaded source. With
// cheapest set it takes the first move that helps, smallest partition
// first (least data); otherwise the move that helps most, the smaller on
// a tie. It reports whether a move was made.
func (pl *planner) bestMove(k int, before []float64, metric func(*load) float64, cheapest, adding, removing bool) bool {
	m := pl.m
	dests := pl.destinations(metric)
	for _, src := range pl.sources(metric) {
		ps := partitionsOn(m, src)
		bySizeThenName(ps)
		var best *action
		var bestGain float64
		for _, p := range ps {
			for _, dst := range dests {
				if !pl.canMove(p, src, dst, adding, removing) {
					continue
				}
				a := action{p: p, from: src, to: dst}
				gain := pl.try(a, k, before)
				if gain == 0 {
					continue
				}
				if cheapest {
					return true
				}
				// Measure only: undo, remember the best.
				pl.apply(action{p: p, from: dst, to: src})
				if gain > bestGain+1e-9 {
					best, bestGain = &a, gain
				}
			}
		}
		if best != nil {
			pl.apply(*best)
			return true
		}
	}
	return false
}

// bestSwap exchanges a replica of the most loaded broker with one of the
// least loaded, keeping replica counts, taking the exchange that helps
// most.
func (pl *planner) bestSwap(k int, before []float64, metric func(*load) float64) bool {
	m := pl.m
	srcs, dests := pl.sources(metric), pl.destinations(metric)
	for _, src := range srcs {
		for _, dst := range dests {
			if src == dst || m.byID[dst].Removed {
				continue
			}
			var best *action
			var bestGain float64
			for _, p := range partitionsOn(m, src) {
				if slices.Contains(p.Replicas, dst) {
					continue
				}
				for _, q := range partitionsOn(m, dst) {
					if q == p || slices.Contains(q.Replicas, src) {
						continue
					}
					a := action{p: p, from: src, to: dst, q: q}
					gain := pl.try(a, k, before)
					if gain == 0 {
						continue
					}
					pl.apply(action{p: p, from: dst, to: src, q: q})
					if gain > bestGain+1e-9 || (gain > bestGain-1e-9 && best != nil && p.Size+q.Size < best.p.Size+best.q.Size) {
						best, bestGain = &a, gain
					}
				}
			}
			if best != nil {
				pl.apply(*best)
				return true
			}
		}
	}
	return false
}

// optimizeLeaders moves preferred leadership (the first replica) between
// a partition's own replicas: no data moves.
func (pl *planner) optimizeLeaders(k int) {
	leaders := func(l *load) float64 { return float64(l.leaders) }
	for n := 0; n < maxActions; n++ {
		before := pl.violations(k)
		if before[k] == 0 {
			return
		}
		if !pl.bestLeaderChange(k, before, leaders) {
			return
		}
	}
}

func (pl *planner) bestLeaderChange(k int, before []float64, leaders func(*load) float64) bool {
	m := pl.m
	for _, src := range pl.sources(leaders) {
		for _, p := range m.Partitions {
			if len(p.Replicas) < 2 || p.Replicas[0] != src || p.Pinned {
				continue
			}
			// Prefer handing leadership to the replica with fewest leaders.
			idx := make([]int, 0, len(p.Replicas)-1)
			for i := 1; i < len(p.Replicas); i++ {
				idx = append(idx, i)
			}
			slices.SortStableFunc(idx, func(a, b int) int {
				return cmp.Compare(leaders(m.load[p.Replicas[a]]), leaders(m.load[p.Replicas[b]]))
			})
			for _, i := range idx {
				if b := m.byID[p.Replicas[i]]; b == nil || b.Removed {
					continue
				}
				if pl.try(action{p: p, lead: i}, k, before) > 0 {
					return true
				}
			}
		}
	}
	return false
}
