package rebalance

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"

	"kafgo/internal/topicpart"
)

// Options shape a plan.
type Options struct {
	// AddBrokers are new brokers: replicas move only onto them, only from
	// the others (Cruise Control's add_broker).
	AddBrokers []int32
	// RemoveBrokers are drained: replicas move only off them, until they
	// hold none (remove_broker).
	RemoveBrokers []int32
}

// Change is one partition whose assignment the plan changes.
type Change struct {
	TP            topicpart.TP
	Before, After []int32
	// Added are the brokers that get a new replica (each copies the
	// partition); Bytes is what they copy in all.
	Added []int32
	Bytes int64
}

// GoalResult is one goal's state before and after the plan.
type GoalResult struct {
	Name          string
	Hard          bool
	Applies       bool
	Before, After float64 // violation; 0 is met
}

// Plan is a proposed rebalance.
type Plan struct {
	Before, After *Model
	Changes       []Change
	Goals         []GoalResult
	// BytesToMove is the data the moves copy; LowerBound the least any
	// plan meeting the replica-count goal must copy (see lowerBound).
	BytesToMove, LowerBound int64
	// NotPreferred counts partitions whose leader is not their preferred
	// replica now; the plan's execution elects the preferred ones.
	NotPreferred int
}

// Moves counts the replica moves (new replicas) of the plan.
func (p *Plan) Moves() int {
	n := 0
	for _, c := range p.Changes {
		n += len(c.Added)
	}
	return n
}

// Assignment is the planned replicas of every changed partition.
func (p *Plan) Assignment() map[topicpart.TP][]int32 {
	out := map[topicpart.TP][]int32{}
	for _, c := range p.Changes {
		out[c.TP] = c.After
	}
	return out
}

// Current is the replicas before the plan of every changed partition (for
// a rollback).
func (p *Plan) Current() map[topicpart.TP][]int32 {
	out := map[topicpart.TP][]int32{}
	for _, c := range p.Changes {
		out[c.TP] = c.Before
	}
	return out
}

// Make plans a rebalance of m (which it does not change).
func Make(m *Model, o Options) (*Plan, error) {
	before := m.Clone()
	for _, ids := range [][]int32{o.AddBrokers, o.RemoveBrokers} {
		for _, id := range ids {
			if before.Broker(id) == nil {
				return nil, fmt.Errorf("rebalance: broker %d is not in the cluster (the metadata lists %s)", id, brokerList(before))
			}
		}
	}
	for _, id := range o.AddBrokers {
		if slices.Contains(o.RemoveBrokers, id) {
			return nil, fmt.Errorf("rebalance: broker %d cannot be both added and removed", id)
		}
		before.Broker(id).New = true
	}
	for _, id := range o.RemoveBrokers {
		before.Broker(id).Removed = true
	}
	if len(before.eligible()) == 0 {
		return nil, errors.New("rebalance: no broker would be left to hold replicas")
	}
	for _, p := range before.Partitions {
		if len(p.Replicas) > len(before.eligible()) {
			return nil, fmt.Errorf("rebalance: partition %s has %d replicas, more than the %d brokers that would be left", p.TP, len(p.Replicas), len(before.eligible()))
		}
	}
	after := before.Clone()
	pl := &planner{m: after}
	var goals []Goal
	for _, g := range Goals() {
		if g.Applies(before) {
			goals = append(goals, g)
		}
	}
	pl.goals = goals
	pl.optimize(len(o.AddBrokers) > 0, len(o.RemoveBrokers) > 0)

	plan := &Plan{Before: before, After: after}
	for _, g := range Goals() {
		r := GoalResult{Name: g.Name, Hard: g.Hard, Applies: g.Applies(before)}
		if r.Applies {
			r.Before, r.After = g.Violation(before), g.Violation(after)
		}
		plan.Goals = append(plan.Goals, r)
	}
	for i, p := range before.Partitions {
		q := after.Partitions[i]
		if p.Leader >= 0 && len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
			plan.NotPreferred++
		}
		if slices.Equal(p.Replicas, q.Replicas) {
			continue
		}
		c := Change{TP: p.TP, Before: p.Replicas, After: q.Replicas}
		for _, r := range q.Replicas {
			if !slices.Contains(p.Replicas, r) {
				c.Added = append(c.Added, r)
				c.Bytes += p.Size
			}
		}
		plan.BytesToMove += c.Bytes
		plan.Changes = append(plan.Changes, c)
	}
	for _, g := range plan.Goals {
		if g.Hard && g.Applies && g.After > 0 {
			return plan, fmt.Errorf("rebalance: no plan meets the hard goal %s", g.Name)
		}
	}
	for _, id := range o.RemoveBrokers {
		if n := after.Load(id).Replicas; n > 0 {
			return plan, fmt.Errorf("rebalance: broker %d would keep %d replicas: the other brokers cannot take them without breaking a hard goal", id, n)
		}
	}
	plan.LowerBound = lowerBound(before)
	return plan, nil
}

func brokerList(m *Model) string {
	ids := make([]int32, len(m.Brokers))
	for i, b := range m.Brokers {
		ids[i] = b.ID
	}
	return fmt.Sprint(ids)
}

// lowerBound is the least data any plan meeting the replica-count goal
// copies: each broker above the ceiling of the mean must give away its
// excess, at best its smallest replicas; each broker below the floor must
// receive its shortfall, at best the smallest partitions it lacks (and,
// with --remove-broker, a removed broker everything). Either sum is a lower
// bound; this is the larger. (It ignores the other goals, which can only
// add to it.)
func lowerBound(m *Model) int64 {
	g := distribution(ReplicaDistribution, func(l *load) float64 { return float64(l.replicas) }, true, always)
	lo, hi := g.bounds(m)
	var give, take int64
	for _, b := range m.Brokers {
		n := m.load[b.ID].replicas
		var sizes []int64
		limit := int(hi)
		if b.Removed {
			limit = 0
		}
		if excess := n - limit; excess > 0 {
			for _, p := range partitionsOn(m, b.ID) {
				sizes = append(sizes, p.Size)
			}
			give += smallest(sizes, excess)
		}
		if b.Removed {
			continue
		}
		if short := int(lo) - n; short > 0 {
			sizes = sizes[:0]
			for _, p := range m.Partitions {
				if !slices.Contains(p.Replicas, b.ID) {
					sizes = append(sizes, p.Size)
				}
			}
			take += smallest(sizes, short)
		}
	}
	return max(give, take)
}

func smallest(sizes []int64, n int) int64 {
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	var sum int64
	for i := 0; i < n && i < len(sizes); i++ {
		sum += sizes[i]
	}
	return sum
}

// Batches splits the changes into batches of at most n partitions, the
// biggest moves spread over the batches (Cruise Control's
// PrioritizeLargeReplicaMovementStrategy orders largest first; kafgo keeps
// the plan's order by topic and partition within sizes).
func (p *Plan) Batches(n int) [][]Change {
	if n <= 0 {
		n = 1
	}
	changes := slices.Clone(p.Changes)
	slices.SortStableFunc(changes, func(a, b Change) int { return cmp.Compare(b.Bytes, a.Bytes) })
	var out [][]Change
	for len(changes) > 0 {
		k := min(n, len(changes))
		out = append(out, changes[:k])
		changes = changes[k:]
	}
	return out
}

// BrokerFigures are broker id's figures before the plan, as the cluster
// runs (its actual leaders), and after it (the preferred leaders, which
// the execution elects).
func (p *Plan) BrokerFigures(id int32) (before, after BrokerLoad) {
	return current(p.Before, id), p.After.Load(id)
}

// HumanBytes prints a size as the plan does: B, KiB, MiB, GiB.
func HumanBytes(n int64) string { return human(float64(n)) }
