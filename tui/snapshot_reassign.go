package tui

import "sort"

// Reassignments are the partition reassignments in progress
// (ListPartitionReassignments, KIP-455) with what is known of their
// progress and of the replication throttles that pace them.
type Reassignments struct {
	// Moves are sorted by topic, then partition.
	Moves []Reassignment
	// Throttles are the brokers with a replication throttle rate set
	// (leader/follower.replication.throttled.rate), sorted by broker id,
	// whether or not anything moves: kafka-reassign-partitions --throttle
	// sets them and only --verify, once the moves are done, clears them.
	Throttles []BrokerThrottle
	// ThrottledTopics are the topics whose leader or follower
	// .replication.throttled.replicas is set, sorted.
	ThrottledTopics []string
	// Err is why the list is missing or incomplete, "" when it is not.
	Err string
}

// Reassignment is one partition being moved.
type Reassignment struct {
	Topic     string
	Partition int32
	// Replicas is the full set while the move runs: the target replicas
	// and the ones being removed.
	Replicas, Adding, Removing []int32
	// Throttled is whether the topic's leader or follower
	// .replication.throttled.replicas config names this partition (or
	// "*"), so its catch-up is paced by the brokers' throttle rates.
	Throttled bool
	// BytesLeft is how much of the leader's log the adding replicas still
	// lack in total (DescribeLogDirs sizes), -1 unknown.
	BytesLeft int64
}

// BrokerThrottle is a broker's replication throttle rates in bytes/s, -1
// where none is set.
type BrokerThrottle struct {
	Broker           int32
	Leader, Follower int64
}

func (r *Reassignments) normalize() {
	if r == nil {
		return
	}
	sort.Slice(r.Moves, func(i, j int) bool {
		a, b := r.Moves[i], r.Moves[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	sort.Slice(r.Throttles, func(i, j int) bool { return r.Throttles[i].Broker < r.Throttles[j].Broker })
	sort.Strings(r.ThrottledTopics)
}

// Leftover reports whether a replication throttle is set while nothing
// moves: it still caps replication (a follower catching up after a
// restart included) until someone clears it.
func (r *Reassignments) Leftover() bool {
	return r != nil && len(r.Moves) == 0 && (len(r.Throttles) > 0 || len(r.ThrottledTopics) > 0)
}

// reassigning is the set of partitions being moved.
func (s *Snapshot) reassigning() map[tp]Reassignment {
	out := map[tp]Reassignment{}
	if s.Reassignments != nil {
		for _, m := range s.Reassignments.Moves {
			out[tp{m.Topic, m.Partition}] = m
		}
	}
	return out
}
