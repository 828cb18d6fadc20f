// Package placement is Kafka's replica placement
// (AdminUtils.assignReplicasToBrokers), shared by the controller, which
// places the replicas of new topics and partitions, and the
// reassign-partitions tool, which proposes new assignments with --generate:
// both must place replicas the same way, and the tool may not import broker
// packages.
package placement

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// BrokerRack is a broker for replica placement.
type BrokerRack struct {
	ID   int32
	Rack string // "" when unset
}

// AssignReplicas places nPartitions partitions of rf replicas on brokers as
// Kafka's AdminUtils.assignReplicasToBrokers does: leaders spread round
// robin from a random start, followers shifted so that a broker's
// partitions are not all followed by the same brokers, and, when every
// broker has a rack, replicas of a partition spread over racks first.
// startPartition is the first new partition's id (for added partitions);
// startIndex and shift are random when negative.
func AssignReplicas(brokers []BrokerRack, nPartitions, rf int, startPartition, startIndex, shift int) (map[int32][]int32, error) {
	if nPartitions <= 0 {
		return nil, fmt.Errorf("placement: number of partitions must be larger than 0")
	}
	if rf <= 0 {
		return nil, fmt.Errorf("placement: replication factor must be larger than 0")
	}
	if rf > len(brokers) {
		return nil, fmt.Errorf("placement: replication factor: %d larger than available brokers: %d", rf, len(brokers))
	}
	racks := 0
	for _, b := range brokers {
		if b.Rack != "" {
			racks++
		}
	}
	if racks != 0 && racks != len(brokers) {
		return nil, fmt.Errorf("placement: not all brokers have rack information for replica rack aware assignment")
	}
	n := len(brokers)
	if startIndex < 0 {
		startIndex = rand.IntN(n)
	}
	if shift < 0 {
		shift = rand.IntN(n)
	}
	if racks == 0 {
		ids := make([]int32, n)
		for i, b := range brokers {
			ids[i] = b.ID
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		return assignRackUnaware(ids, nPartitions, rf, startPartition, startIndex, shift), nil
	}
	return assignRackAware(brokers, nPartitions, rf, startPartition, startIndex, shift), nil
}

func replicaIndex(first, shift, j, n int) int {
	s := 1 + (shift+j)%(n-1)
	return (first + s) % n
}

func assignRackUnaware(ids []int32, nPartitions, rf, startPartition, startIndex, shift int) map[int32][]int32 {
	n := len(ids)
	out := make(map[int32][]int32, nPartitions)
	pid := max(startPartition, 0)
	for i := 0; i < nPartitions; i++ {
		if pid > 0 && pid%n == 0 {
			shift++
		}
		first := (pid + startIndex) % n
		replicas := []int32{ids[first]}
		for j := 0; j < rf-1; j++ {
			replicas = append(replicas, ids[replicaIndex(first, shift, j, n)])
		}
		out[int32(pid)] = replicas
		pid++
	}
	return out
}

// rackAlternated orders brokers so that consecutive ones sit in different
// racks: racks sorted, each rack's brokers sorted, taken one per rack in turn.
func rackAlternated(brokers []BrokerRack) ([]int32, map[int32]string) {
	byRack := map[string][]int32{}
	rackOf := map[int32]string{}
	for _, b := range brokers {
		byRack[b.Rack] = append(byRack[b.Rack], b.ID)
		rackOf[b.ID] = b.Rack
	}
	names := make([]string, 0, len(byRack))
	for r, ids := range byRack {
		names = append(names, r)
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	}
	sort.Strings(names)
	var out []int32
	for k := 0; len(out) < len(brokers); k++ {
		for _, r := range names {
			if k < len(byRack[r]) {
				out = append(out, byRack[r][k])
			}
		}
	}
	return out, rackOf
}

func assignRackAware(brokers []BrokerRack, nPartitions, rf, startPartition, startIndex, shift int) map[int32][]int32 {
	ids, rackOf := rackAlternated(brokers)
	n := len(ids)
	numRacks := map[string]bool{}
	for _, r := range rackOf {
		numRacks[r] = true
	}
	out := make(map[int32][]int32, nPartitions)
	pid := max(startPartition, 0)
	for i := 0; i < nPartitions; i++ {
		if pid > 0 && pid%n == 0 {
			shift++
		}
		first := (pid + startIndex) % n
		leader := ids[first]
		replicas := []int32{leader}
		usedRacks := map[string]bool{rackOf[leader]: true}
		used := map[int32]bool{leader: true}
		for k := 0; len(replicas) < rf && k < n*n; k++ {
			b := ids[replicaIndex(first, shift*len(numRacks), k, n)]
			rack := rackOf[b]
			// Skip a broker whose rack already holds a replica unless every
			// rack does, and a broker already chosen unless every broker is.
			if (!usedRacks[rack] || len(usedRacks) == len(numRacks)) && (!used[b] || len(used) == n) {
				replicas = append(replicas, b)
				usedRacks[rack] = true
				used[b] = true
			}
		}
		out[int32(pid)] = replicas
		pid++
	}
	return out
}
