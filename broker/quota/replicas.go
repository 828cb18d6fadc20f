package quota

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Replicas is the set of one topic's partitions throttled on one broker,
// on one side (leader or follower). The zero value throttles nothing. It is
// immutable, so it can be shared between goroutines.
type Replicas struct {
	all        bool
	partitions []int32 // sorted, no duplicates
}

// AllReplicas throttles every partition ("*").
var AllReplicas = Replicas{all: true}

// ParseReplicas reads leader.replication.throttled.replicas or
// follower.replication.throttled.replicas for the broker brokerID: "*" is
// every partition; otherwise the partitions of the partitionId:brokerId
// pairs naming brokerID (Kafka's TopicConfigHandler.parseThrottledPartitions).
// Blank items are skipped, as Kafka's validator allows them; a pair whose
// numbers do not fit an int32 names no real replica and is skipped too. Any
// other item is an error.
func ParseReplicas(value string, brokerID int32) (Replicas, error) {
	v := strings.TrimSpace(value)
	switch v {
	case "":
		return Replicas{}, nil
	case "*":
		return AllReplicas, nil
	}
	var parts []int32
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		ps, bs, ok := strings.Cut(item, ":")
		if !ok || !digits(ps) || !digits(bs) {
			return Replicas{}, fmt.Errorf("quota: throttled replica %q is not partitionId:brokerId", item)
		}
		p, perr := strconv.ParseInt(ps, 10, 32)
		b, berr := strconv.ParseInt(bs, 10, 32)
		if perr != nil || berr != nil {
			continue
		}
		if int32(b) == brokerID {
			parts = append(parts, int32(p))
		}
	}
	slices.Sort(parts)
	return Replicas{partitions: slices.Compact(parts)}, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Contains reports whether the partition is throttled.
func (r Replicas) Contains(partition int32) bool {
	if r.all {
		return true
	}
	_, ok := slices.BinarySearch(r.partitions, partition)
	return ok
}

// Empty reports whether nothing is throttled.
func (r Replicas) Empty() bool { return !r.all && len(r.partitions) == 0 }

// String renders the set: "*", or the partition ids, comma separated.
func (r Replicas) String() string {
	if r.all {
		return "*"
	}
	s := make([]string, len(r.partitions))
	for i, p := range r.partitions {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}
