package rebalance

import (
	"math"
)

// Goal is one of Cruise Control's goals as kafgo plans with it: a measure
// of how far the model is from meeting it (0: met), hard goals having to
// be met, soft ones met as far as possible without undoing an earlier goal.
type Goal struct {
	Name string
	Hard bool
	// Violation is 0 when the goal is met, more the further it is.
	Violation func(m *Model) float64
	// Applies says whether the goal can be judged on this model (traffic
	// goals need measured traffic; the disk capacity goal known volumes).
	Applies func(m *Model) bool
	// metric, for the distribution goals: the per-broker figure the goal
	// balances, and whether its bounds are exact counts (floor..ceil of
	// the mean) rather than the balance margin around it.
	metric func(l *load) float64
	counts bool
}

// The goal names, Cruise Control's.
const (
	RackAware               = "RackAwareGoal"
	ReplicaCapacity         = "ReplicaCapacityGoal"
	DiskCapacity            = "DiskCapacityGoal"
	ReplicaDistribution     = "ReplicaDistributionGoal"
	DiskUsageDistribution   = "DiskUsageDistributionGoal"
	NetworkInDistribution   = "NetworkInboundUsageDistributionGoal"
	NetworkOutDistribution  = "NetworkOutboundUsageDistributionGoal"
	LeaderDistribution      = "LeaderReplicaDistributionGoal"
	PreferredLeaderElection = "PreferredLeaderElectionGoal"
)

func always(*Model) bool { return true }

// Goals are kafgo's goals in priority order: Cruise Control's default
// goals that kafgo can judge (hard ones first), then leadership.
func Goals() []Goal {
	return []Goal{
		{Name: RackAware, Hard: true, Violation: rackViolation, Applies: func(m *Model) bool { return m.racks() > 1 }},
		{Name: ReplicaCapacity, Hard: true, Violation: replicaCapacityViolation, Applies: always},
		{Name: DiskCapacity, Hard: true, Violation: diskCapacityViolation, Applies: diskCapacityKnown},
		distribution(ReplicaDistribution, func(l *load) float64 { return float64(l.replicas) }, true, always),
		distribution(DiskUsageDistribution, func(l *load) float64 { return float64(l.disk) }, false, always),
		distribution(NetworkInDistribution, func(l *load) float64 { return l.in }, false, func(m *Model) bool { return m.Traffic }),
		distribution(NetworkOutDistribution, func(l *load) float64 { return l.out }, false, func(m *Model) bool { return m.Traffic }),
		distribution(LeaderDistribution, func(l *load) float64 { return float64(l.leaders) }, true, always),
	}
}

// rackViolation counts, over partitions, the racks each is short of: a
// partition should span min(replicas, racks) racks.
func rackViolation(m *Model) float64 {
	racks := m.racks()
	var v float64
	for _, p := range m.Partitions {
		want := min(len(p.Replicas), racks)
		seen := map[string]bool{}
		for _, r := range p.Replicas {
			if rack := m.rackOf(r); rack != "" {
				seen[rack] = true
			}
		}
		if short := want - len(seen); short > 0 {
			v += float64(short)
		}
	}
	return v
}

// replicaCapacityViolation is how many replicas brokers hold beyond
// max.replicas.per.broker; a removed broker's capacity is zero.
func replicaCapacityViolation(m *Model) float64 {
	var v float64
	for _, b := range m.Brokers {
		limit := m.MaxReplicasPerBroker
		if b.Removed {
			limit = 0
		}
		if n := m.load[b.ID].replicas; n > limit {
			v += float64(n - limit)
		}
	}
	return v
}

func diskCapacityKnown(m *Model) bool {
	for _, b := range m.eligible() {
		if b.Capacity() < 0 {
			return false
		}
	}
	return true
}

// diskCapacityViolation is how many bytes brokers hold beyond
// disk.capacity.threshold of their volumes.
func diskCapacityViolation(m *Model) float64 {
	var v float64
	for _, b := range m.eligible() {
		if c := b.Capacity(); c >= 0 {
			if over := float64(m.load[b.ID].disk) - float64(c)*m.DiskCapacityThreshold; over > 0 {
				v += over
			}
		}
	}
	return v
}

// distribution builds a distribution goal: every eligible broker's figure
// within bounds around the mean.
func distribution(name string, metric func(*load) float64, counts bool, applies func(*Model) bool) Goal {
	g := Goal{Name: name, Applies: applies, metric: metric, counts: counts}
	g.Violation = func(m *Model) float64 {
		lo, hi := g.bounds(m)
		var v float64
		for _, b := range m.eligible() {
			x := metric(m.load[b.ID])
			if x > hi {
				v += x - hi
			} else if x < lo {
				v += lo - x
			}
		}
		// Replicas left on removed brokers are out of bounds too.
		for _, b := range m.Brokers {
			if b.Removed {
				v += metric(m.load[b.ID])
			}
		}
		return v
	}
	return g
}

// bounds are the goal's allowed range for each eligible broker: for counts
// the floor and ceiling of the mean (a broker within one of the mean), else
// Cruise Control's mean * (1 ± (threshold - 1) * 0.9).
func (g Goal) bounds(m *Model) (lo, hi float64) {
	elig := m.eligible()
	var total float64
	for _, b := range m.Brokers {
		total += g.metric(m.load[b.ID])
	}
	mean := total / float64(len(elig))
	if g.counts {
		return math.Floor(mean), math.Ceil(mean)
	}
	margin := (m.BalanceThreshold - 1) * 0.9
	return mean * (1 - margin), mean * (1 + margin)
}
