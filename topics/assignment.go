package topics

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseReplicaAssignment parses --replica-assignment: commas separate
// partitions, colons separate the broker ids of one partition's replicas,
// so "0:1,1:2" gives partition 0 replicas [0 1] and partition 1 [1 2].
// Every partition must have the same replica count and no broker twice.
func ParseReplicaAssignment(s string) ([][]int32, error) {
	var out [][]int32
	for i, part := range strings.Split(s, ",") {
		var ids []int32
		for _, f := range strings.Split(part, ":") {
			f = strings.TrimSpace(f)
			n, err := strconv.ParseInt(f, 10, 32)
			if err != nil {
				// Java's NumberFormatException text, which Kafka prints.
				return nil, fmt.Errorf("For input string: \"%s\"", f)
			}
			ids = append(ids, int32(n))
		}
		if dups := duplicates(ids); len(dups) > 0 {
			return nil, fmt.Errorf("Partition replica lists may not contain duplicate entries: %s", joinIDs(dups))
		}
		if len(out) > 0 && len(ids) != len(out[0]) {
			return nil, fmt.Errorf("Partition %d has different replication factor: %s", i, javaList(ids))
		}
		out = append(out, ids)
	}
	return out, nil
}

// duplicates returns every occurrence of each id that appears more than
// once, in input order.
func duplicates(ids []int32) []int32 {
	seen := make(map[int32]int, len(ids))
	for _, id := range ids {
		seen[id]++
	}
	var d []int32
	for _, id := range ids {
		if seen[id] > 1 {
			d = append(d, id)
		}
	}
	return d
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// javaList renders ids as Java's List.toString does: "[1, 2, 3]".
func javaList(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// parseConfigs parses the repeatable --config name=value flags, keeping
// the last value of a repeated name.
func parseConfigs(kvs []string) (map[string]string, error) {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errInvalidConfig
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
