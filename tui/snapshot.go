package tui

import (
	"sort"
	"time"
)

// Snapshot is one observation of the cluster. Every slice is sorted (see
// Normalize) so that rendering needs no ordering decisions of its own.
type Snapshot struct {
	Taken      time.Time
	ClusterID  string
	Controller Controller
	Brokers    []Broker
	Topics     []Topic
	Groups     []Group
	// Transactions is nil when the cluster does not serve the KIP-664
	// APIs (ListTransactions, DescribeTransactions): the view is hidden.
	Transactions *Transactions
	// Reassignments is nil when the cluster does not serve
	// ListPartitionReassignments (KIP-455, Kafka 2.4): the view is hidden.
	Reassignments *Reassignments
	// Warnings are the parts of the observation that failed without
	// making the rest useless (an unreachable admin endpoint, a group that
	// could not be described).
	Warnings []string
	// NoAdmin is set when no admin endpoint was given (--admin): what
	// only they know (followers' log end offsets and lag, byte rates,
	// the controller epoch) is unknown, and the header says why.
	NoAdmin bool
}

// Controller is the active controller as the cluster reports it.
type Controller struct {
	ID    int32 // -1 when there is none
	Epoch int32 // -1 when unknown: only the controller's admin endpoint knows it
}

// Broker is one broker, live (in Metadata) or referenced by a replica
// assignment while it is down.
type Broker struct {
	ID      int32
	Host    string
	Port    int32
	Rack    string
	Offline bool
	// Admin is the admin endpoint that answered for this broker, "" if
	// none did.
	Admin string
	// Throttled are the client quota sensors its admin endpoint reports
	// as throttling recently.
	Throttled []ThrottledClient
	// Counters are its cumulative throughput counters, nil when no admin
	// endpoint reported them.
	Counters *Counters
}

// Counters are a broker's cumulative byte counters as its admin endpoint's
// /metrics reports them (see counterNames); a negative total is unknown.
type Counters struct {
	BytesIn, BytesOut float64
	// Topics holds the per-topic counters when the broker reports them.
	Topics map[string]TopicCounters
}

// TopicCounters are one topic's cumulative byte counters on one broker; a
// negative value is unknown.
type TopicCounters struct{ BytesIn, BytesOut float64 }

// Topic is a topic and its partitions, sorted by partition id.
type Topic struct {
	Name       string
	Internal   bool
	Partitions []Partition
	Err        string // Metadata's error for the topic, if any
	// MinISR is the topic's min.insync.replicas, 0 when unknown.
	MinISR int
}

// Partition is one partition's leadership and offsets.
type Partition struct {
	ID          int32
	Leader      int32 // -1: offline
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
	Offline     []int32
	HW          int64 // high watermark, -1 unknown
	LEO         int64 // the leader's log end offset, -1 unknown
	LogStart    int64 // -1 unknown
	// ReplicaLEOs holds what is known of each replica's log end offset;
	// a replica missing from the map is unknown.
	ReplicaLEOs map[int32]int64
}

// Group is a consumer group with its committed offsets.
type Group struct {
	ID           string
	State        string
	ProtocolType string
	Protocol     string
	Coordinator  int32
	Members      []Member
	Offsets      []GroupOffset // sorted by topic, partition
	Err          string

	// Health is the consumer health its coordinator keeps (its admin
	// endpoint's /v1/consumer-health), nil when unknown.
	Health *GroupHealth
}

// GroupHealth is a group's consumer health (internal/consumerhealth):
// Burrow's status over the coordinator's window of commits, its number
// (OK 1, WARNING 2, ERROR 3, STOP 4, STALL 5, REWIND 6; higher is worse),
// and the largest time lag of its partitions.
type GroupHealth struct {
	Status     string
	Code       int
	MaxTimeLag time.Duration
}

// PartitionHealth is one partition's: status, time lag (now minus the
// time of the next record to read) and estimated time to catch up;
// FallingBehind marks an ETA that is the backlog alone at the consume
// rate, producers outpacing the group.
type PartitionHealth struct {
	Status        string
	Code          int
	TimeLag       time.Duration
	TimeLagKnown  bool
	ETA           time.Duration
	ETAKnown      bool
	FallingBehind bool
}

// Member is one group member.
type Member struct {
	ID       string
	ClientID string
	Host     string
	// Assigned are the partitions assigned to it ("topic-3"), sorted,
	// when the group uses the consumer protocol.
	Assigned []string
}

// GroupOffset is one partition a group has committed or been assigned.
type GroupOffset struct {
	Topic     string
	Partition int32
	Committed int64 // -1: nothing committed
	End       int64 // the partition's high watermark, -1 unknown
	// MemberID, ClientID and Host are the member it is assigned to, ""
	// when none is.
	MemberID string
	ClientID string
	Host     string
	// Health is the coordinator's view of this partition, nil unknown.
	Health *PartitionHealth
}

// Lag is End − Committed, or false when either is unknown. An end below
// the committed offset is not the partition's end (a leader that just
// took over reports a high watermark that has yet to catch up, or none):
// the lag is unknown then, never negative.
func (o GroupOffset) Lag() (int64, bool) {
	if o.Committed < 0 || o.End < 0 || o.End < o.Committed {
		return 0, false
	}
	return o.End - o.Committed, true
}

// Lag sums the known per-partition lags; known is false when none is.
func (g Group) Lag() (total int64, known bool) {
	for _, o := range g.Offsets {
		if l, ok := o.Lag(); ok {
			total += l
			known = true
		}
	}
	return total, known
}

// UnderReplicated is Kafka's definition: fewer in-sync replicas than
// assigned ones.
func (p Partition) UnderReplicated() bool { return len(p.ISR) < len(p.Replicas) }

// HasLeader reports whether the partition is online.
func (p Partition) HasLeader() bool { return p.Leader >= 0 }

// NonPreferred reports whether an online partition is led by another
// replica than its preferred one (the first assigned), which a preferred
// leader election would move back.
func (p Partition) NonPreferred() bool {
	return p.HasLeader() && len(p.Replicas) > 0 && p.Leader != p.Replicas[0]
}

// UnderMinISR reports whether an online partition has fewer in-sync
// replicas than min.insync.replicas, so acks=all produce fails with
// NOT_ENOUGH_REPLICAS (Kafka's UnderMinIsrPartitionCount).
func (p Partition) UnderMinISR(minISR int) bool {
	return minISR > 0 && p.HasLeader() && len(p.ISR) < minISR
}

// ReplicaLEO is a replica's log end offset, if known. The leader's own is
// the partition's LEO when the per-replica map lacks it.
func (p Partition) ReplicaLEO(id int32) (int64, bool) {
	if leo, ok := p.ReplicaLEOs[id]; ok && leo >= 0 {
		return leo, true
	}
	if id == p.Leader && p.LEO >= 0 {
		return p.LEO, true
	}
	return 0, false
}

// ReplicaLag is the leader's LEO minus the replica's, if both are known.
func (p Partition) ReplicaLag(id int32) (int64, bool) {
	lead, ok := p.ReplicaLEO(p.Leader)
	if !ok || p.Leader < 0 {
		return 0, false
	}
	leo, ok := p.ReplicaLEO(id)
	if !ok {
		return 0, false
	}
	return lead - leo, true
}

// MaxLag is the largest lag of the partition's followers behind its
// leader. Only the admin endpoints know the followers' log end offsets
// (ReplicaLEOs; the leader's own, which ListOffsets gives, says nothing
// about them), so it is unknown unless they reported the partition and
// every follower not offline has a known log end offset.
func (p Partition) MaxLag() (int64, bool) {
	if !p.HasLeader() || len(p.ReplicaLEOs) == 0 {
		return 0, false
	}
	var lag int64
	for _, r := range p.Replicas {
		if r == p.Leader {
			continue
		}
		l, ok := p.ReplicaLag(r)
		switch {
		case ok:
			lag = max(lag, l)
		case !p.IsOffline(r):
			return 0, false
		}
	}
	return lag, true
}

// IsOffline reports whether replica id is listed as offline.
func (p Partition) IsOffline(id int32) bool { return contains(p.Offline, id) }

// InISR reports whether replica id is in sync.
func (p Partition) InISR(id int32) bool { return contains(p.ISR, id) }

// RF is the topic's replication factor: the largest replica set, since
// partitions differ while a reassignment runs.
func (t Topic) RF() int {
	rf := 0
	for _, p := range t.Partitions {
		rf = max(rf, len(p.Replicas))
	}
	return rf
}

// count is how many of the topic's partitions satisfy ok.
func (t Topic) count(ok func(Partition) bool) int {
	n := 0
	for _, p := range t.Partitions {
		if ok(p) {
			n++
		}
	}
	return n
}

// UnderReplicated counts the topic's under-replicated partitions.
func (t Topic) UnderReplicated() int { return t.count(Partition.UnderReplicated) }

// UnderMinISR counts the topic's partitions under min.insync.replicas.
func (t Topic) UnderMinISR() int {
	return t.count(func(p Partition) bool { return p.UnderMinISR(t.MinISR) })
}

// NonPreferred counts the partitions not led by their preferred replica.
func (t Topic) NonPreferred() int { return t.count(Partition.NonPreferred) }

// OfflinePartitions counts the partitions without a leader.
func (t Topic) OfflinePartitions() int {
	return t.count(func(p Partition) bool { return !p.HasLeader() })
}

// MaxLag is the largest known replica lag over the topic.
func (t Topic) MaxLag() (int64, bool) {
	var max int64
	known := false
	for _, p := range t.Partitions {
		if l, ok := p.MaxLag(); ok {
			if !known || l > max {
				max = l
			}
			known = true
		}
	}
	return max, known
}

// Topic finds a topic by name.
func (s *Snapshot) Topic(name string) (Topic, bool) {
	for _, t := range s.Topics {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

// Broker finds a broker by id.
func (s *Snapshot) Broker(id int32) (Broker, bool) {
	for _, b := range s.Brokers {
		if b.ID == id {
			return b, true
		}
	}
	return Broker{}, false
}

// Group finds a group by id.
func (s *Snapshot) Group(id string) (Group, bool) {
	for _, g := range s.Groups {
		if g.ID == id {
			return g, true
		}
	}
	return Group{}, false
}

// Normalize sorts everything a view lists: brokers by id, topics by name
// with internal topics last (operators look for their own topics first),
// partitions by id, replica-set members kept in assignment order (the
// first is the preferred leader), groups by id, offsets by topic and
// partition, open transactions by id, warnings as given.
func (s *Snapshot) Normalize() {
	sort.Slice(s.Brokers, func(i, j int) bool { return s.Brokers[i].ID < s.Brokers[j].ID })
	sort.Slice(s.Topics, func(i, j int) bool {
		a, b := s.Topics[i], s.Topics[j]
		if a.Internal != b.Internal {
			return !a.Internal
		}
		return a.Name < b.Name
	})
	for _, t := range s.Topics {
		sort.Slice(t.Partitions, func(i, j int) bool { return t.Partitions[i].ID < t.Partitions[j].ID })
	}
	sort.Slice(s.Groups, func(i, j int) bool { return s.Groups[i].ID < s.Groups[j].ID })
	for _, g := range s.Groups {
		sort.Slice(g.Offsets, func(i, j int) bool {
			a, b := g.Offsets[i], g.Offsets[j]
			if a.Topic != b.Topic {
				return a.Topic < b.Topic
			}
			return a.Partition < b.Partition
		})
		sort.Slice(g.Members, func(i, j int) bool { return g.Members[i].ID < g.Members[j].ID })
	}
	s.Transactions.normalize()
	s.Reassignments.normalize()
}

// Summary counts for the brokers view.
type clusterSummary struct {
	partitions, underReplicated, offline int
	underMinISR, nonPreferred            int
	maxLag                               int64
	maxLagKnown                          bool
	lagUnknown                           int // led partitions whose follower lag is unknown
	leaders, replicas                    map[int32]int
}

func (s *Snapshot) summary() clusterSummary {
	c := clusterSummary{leaders: map[int32]int{}, replicas: map[int32]int{}}
	for _, t := range s.Topics {
		for _, p := range t.Partitions {
			c.partitions++
			if p.UnderReplicated() {
				c.underReplicated++
			}
			if p.UnderMinISR(t.MinISR) {
				c.underMinISR++
			}
			if p.NonPreferred() {
				c.nonPreferred++
			}
			if !p.HasLeader() {
				c.offline++
			} else {
				c.leaders[p.Leader]++
			}
			for _, r := range p.Replicas {
				c.replicas[r]++
			}
			if l, ok := p.MaxLag(); ok {
				if !c.maxLagKnown || l > c.maxLag {
					c.maxLag, c.maxLagKnown = l, true
				}
			} else if p.HasLeader() {
				c.lagUnknown++
			}
		}
	}
	return c
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
