package reassign

import (
	"fmt"
	"slices"
	"strings"
)

// The configs kafka-reassign-partitions sets for --throttle and clears on
// --verify and --cancel (Kafka's QuotaConfigs names).
const (
	brokerLeaderThrottle   = "leader.replication.throttled.rate"
	brokerFollowerThrottle = "follower.replication.throttled.rate"
	brokerLogDirThrottle   = "replica.alter.log.dirs.io.max.bytes.per.second"
	topicLeaderThrottle    = "leader.replication.throttled.replicas"
	topicFollowerThrottle  = "follower.replication.throttled.replicas"
	mustVerifyWarning      = "Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed."
	throttleSetMessage     = "The inter-broker throttle limit was set to %d B/s\n"
	clearingBrokersMessage = "Clearing broker-level throttles on broker%s %s\n"
	clearingTopicsMessage  = "Clearing topic-level throttles on topic%s %s\n"
)

// brokerThrottles and topicThrottles are what clearing removes. The log
// directory throttle is cleared too, as Kafka clears it, though kafgo never
// sets it: a value left by another tool goes with the rest.
var (
	brokerThrottles = []string{brokerLeaderThrottle, brokerFollowerThrottle, brokerLogDirThrottle}
	topicThrottles  = []string{topicLeaderThrottle, topicFollowerThrottle}
)

// partitionMove is one partition's movement: the replicas data comes from
// (the replicas before the move) and the ones being added.
type partitionMove struct {
	sources, destinations []int32 // sorted, no duplicates
}

// moveMap holds the movements by topic and partition.
type moveMap map[string]map[int32]partitionMove

func (mm moveMap) put(p TopicPartition, m partitionMove) {
	if mm[p.Topic] == nil {
		mm[p.Topic] = map[int32]partitionMove{}
	}
	mm[p.Topic][p.Partition] = m
}

func set(ids []int32) []int32 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return slices.Compact(s)
}

// proposedMoves is Kafka's calculateProposedMoveMap: every reassignment in
// flight (its sources are the replicas it does not add), then the proposed
// targets, whose sources are those of the move in flight if there is one,
// else the partition's current replicas, and whose destinations are the
// target replicas that are not sources. Throttles set from it cover the
// moves already running as well as the new ones, so resubmitting with
// --additional keeps every move throttled.
func proposedMoves(inFlight map[TopicPartition]InFlight, targets, current map[TopicPartition][]int32) moveMap {
	mm := moveMap{}
	for p, r := range inFlight {
		var sources []int32
		for _, id := range r.Replicas {
			if !slices.Contains(r.Adding, id) {
				sources = append(sources, id)
			}
		}
		mm.put(p, partitionMove{sources: set(sources), destinations: set(r.Adding)})
	}
	for p, target := range targets {
		var sources []int32
		if m, ok := mm[p.Topic][p.Partition]; ok {
			sources = m.sources
		} else {
			sources = set(current[p])
		}
		var dests []int32
		for _, id := range target {
			if !slices.Contains(sources, id) {
				dests = append(dests, id)
			}
		}
		mm.put(p, partitionMove{sources: sources, destinations: set(dests)})
	}
	return mm
}

// topicThrottleValues renders leader.replication.throttled.replicas (every
// source of every moving partition) and follower.replication.throttled.replicas
// (every destination that is not also a source) for each topic, as
// partitionId:brokerId lists sorted as strings, as Kafka's TreeSet sorts them.
func topicThrottleValues(mm moveMap) (leader, follower map[string]string) {
	leader, follower = map[string]string{}, map[string]string{}
	for topic, parts := range mm {
		var l, f []string
		for p, m := range parts {
			for _, s := range m.sources {
				l = append(l, fmt.Sprintf("%d:%d", p, s))
			}
			for _, d := range m.destinations {
				if !slices.Contains(m.sources, d) {
					f = append(f, fmt.Sprintf("%d:%d", p, d))
				}
			}
		}
		slices.Sort(l)
		slices.Sort(f)
		leader[topic] = strings.Join(slices.Compact(l), ",")
		follower[topic] = strings.Join(slices.Compact(f), ",")
	}
	return leader, follower
}

// reassigningBrokers is every broker a move reads from or writes to: the
// ones whose throttled rates are set.
func reassigningBrokers(mm moveMap) []int32 {
	var ids []int32
	for _, parts := range mm {
		for _, m := range parts {
			ids = append(ids, m.sources...)
			ids = append(ids, m.destinations...)
		}
	}
	return set(ids)
}
