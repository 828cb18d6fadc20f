package rebalance

import (
	"slices"

	"kafgo/internal/topicpart"
)

// Broker is one broker of the model.
type Broker struct {
	ID   int32
	Rack string // "" when the broker has none
	// LogDirs are the broker's log directories with their volumes' sizes
	// (TotalBytes -1 when unknown).
	LogDirs []LogDir
	// New brokers (--add-broker) only receive replicas; Removed ones
	// (--remove-broker) only give them away, down to none.
	New, Removed bool
}

// LogDir is one log directory of a broker.
type LogDir struct {
	Path       string
	TotalBytes int64 // size of its volume; -1 unknown
}

// Capacity is the broker's disk capacity, the sum of its log directories'
// volumes; -1 when any is unknown. Directories on one volume count it once.
func (b *Broker) Capacity() int64 {
	if len(b.LogDirs) == 0 {
		return -1
	}
	var total int64
	for _, d := range b.LogDirs {
		if d.TotalBytes < 0 {
			return -1
		}
		total += d.TotalBytes
	}
	return total
}

// Partition is one partition of the model: its replicas in preference
// order (the first is the preferred leader), its size and its traffic.
type Partition struct {
	TP       topicpart.TP
	Replicas []int32
	Leader   int32 // current leader; -1 none
	// Size is the partition's size in bytes (the largest of its replicas'
	// sizes): what moving one replica copies.
	Size int64
	// BytesIn is what producers write to the partition, per second, as
	// measured over the metrics window; BytesOut what consumers read from
	// its leader. Followers fetch BytesIn each.
	BytesIn, BytesOut float64
	// Dirs is the log directory of each replica, by broker, as described.
	Dirs map[int32]string
	// Pinned partitions (--exclude-topics) stay where they are, except
	// that their replicas on removed brokers still move.
	Pinned bool
}

// Model is the cluster as the planner sees it.
type Model struct {
	Brokers    []*Broker // by id
	Partitions []*Partition
	// Traffic says whether BytesIn/BytesOut were measured.
	Traffic bool
	// MaxReplicasPerBroker is ReplicaCapacityGoal's cap
	// (max.replicas.per.broker, 10000).
	MaxReplicasPerBroker int
	// DiskCapacityThreshold is disk.capacity.threshold (0.8).
	DiskCapacityThreshold float64
	// BalanceThreshold is the *.balance.threshold of the distribution
	// goals (1.10): brokers stay within mean * (1 ± (t-1)*0.9).
	BalanceThreshold float64

	byID map[int32]*Broker
	load map[int32]*load
}

// load is one broker's aggregates, kept up to date as the planner moves
// replicas.
type load struct {
	replicas, leaders int
	disk              int64
	in, out           float64
}

// Clone copies the model deeply, for a plan's "after".
func (m *Model) Clone() *Model {
	c := *m
	c.Brokers = make([]*Broker, len(m.Brokers))
	for i, b := range m.Brokers {
		bb := *b
		bb.LogDirs = slices.Clone(b.LogDirs)
		c.Brokers[i] = &bb
	}
	c.Partitions = make([]*Partition, len(m.Partitions))
	for i, p := range m.Partitions {
		pp := *p
		pp.Replicas = slices.Clone(p.Replicas)
		c.Partitions[i] = &pp
	}
	c.index()
	return &c
}

// index builds the lookups and the per-broker aggregates.
func (m *Model) index() {
	slices.SortFunc(m.Brokers, func(a, b *Broker) int { return int(a.ID - b.ID) })
	slices.SortFunc(m.Partitions, func(a, b *Partition) int { return topicpart.Compare(a.TP, b.TP) })
	m.byID = map[int32]*Broker{}
	m.load = map[int32]*load{}
	for _, b := range m.Brokers {
		m.byID[b.ID] = b
		m.load[b.ID] = &load{}
	}
	for _, p := range m.Partitions {
		for i, r := range p.Replicas {
			m.add(p, r, i == 0, 1)
		}
	}
}

// add adds (sign 1) or removes (-1) one replica's load on broker r; lead
// says whether it is the partition's preferred leader.
func (m *Model) add(p *Partition, r int32, lead bool, sign int) {
	l := m.load[r]
	if l == nil {
		// A replica on a broker the cluster does not list (offline): it
		// counts nowhere, and the planner moves it like any other.
		return
	}
	s := float64(sign)
	l.replicas += sign
	l.disk += int64(sign) * p.Size
	l.in += s * p.BytesIn
	if lead {
		l.leaders += sign
		l.out += s * (p.BytesOut + p.BytesIn*float64(len(p.Replicas)-1))
	}
}

// setReplicas replaces a partition's replica list, keeping the broker
// aggregates right.
func (m *Model) setReplicas(p *Partition, replicas []int32) {
	for i, r := range p.Replicas {
		m.add(p, r, i == 0, -1)
	}
	p.Replicas = replicas
	for i, r := range p.Replicas {
		m.add(p, r, i == 0, 1)
	}
}

// Broker returns a broker by id.
func (m *Model) Broker(id int32) *Broker { return m.byID[id] }

// eligible are the brokers that may hold replicas after the plan: every
// broker but the removed ones. The distribution goals balance over them.
func (m *Model) eligible() []*Broker {
	var out []*Broker
	for _, b := range m.Brokers {
		if !b.Removed {
			out = append(out, b)
		}
	}
	return out
}

// racks counts the distinct racks among the eligible brokers ("" counts
// as no rack: a cluster without racks needs no rack awareness).
func (m *Model) racks() int {
	seen := map[string]bool{}
	for _, b := range m.eligible() {
		if b.Rack != "" {
			seen[b.Rack] = true
		}
	}
	return len(seen)
}

func (m *Model) rackOf(id int32) string {
	if b := m.byID[id]; b != nil {
		return b.Rack
	}
	return ""
}

// BrokerLoad is one broker's figures.
type BrokerLoad struct {
	Replicas, Leaders int
	Disk              int64
	BytesIn, BytesOut float64
}

// Load returns broker id's figures (zero for an unknown broker).
func (m *Model) Load(id int32) BrokerLoad {
	l := m.load[id]
	if l == nil {
		return BrokerLoad{}
	}
	return BrokerLoad{Replicas: l.replicas, Leaders: l.leaders, Disk: l.disk, BytesIn: l.in, BytesOut: l.out}
}
