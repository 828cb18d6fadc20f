package rebalance

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"kafgo/internal/topicpart"
)

const mib = 1 << 20

// skewed is the cluster: brokers 1..n, topic "skew" with every
// replica on brokers 1 and 2 (sizes 1..parts MiB), and an RF-3 internal
// topic spread over brokers 1..3.
func skewed(n int, parts int) *Model {
	m := &Model{MaxReplicasPerBroker: 10000, DiskCapacityThreshold: 0.8, BalanceThreshold: 1.10}
	for id := int32(1); id <= int32(n); id++ {
		m.Brokers = append(m.Brokers, &Broker{ID: id, LogDirs: []LogDir{{Path: "/d", TotalBytes: 1 << 40}}})
	}
	for i := 0; i < parts; i++ {
		r := []int32{1, 2}
		if i%2 == 1 {
			r = []int32{2, 1}
		}
		m.Partitions = append(m.Partitions, &Partition{TP: topicpart.TP{Topic: "skew", Partition: int32(i)}, Replicas: r, Leader: r[0], Size: int64(i+1) * mib})
	}
	for i := 0; i < 9; i++ {
		r := []int32{int32(i%3 + 1), int32((i+1)%3 + 1), int32((i+2)%3 + 1)}
		m.Partitions = append(m.Partitions, &Partition{TP: topicpart.TP{Topic: "__consumer_offsets", Partition: int32(i)}, Replicas: r, Leader: r[0], Size: 1000})
	}
	m.index()
	return m
}

func withinOneOfMean(t *testing.T, m *Model) {
	t.Helper()
	elig := m.eligible()
	total := 0
	for _, b := range m.Brokers {
		total += m.Load(b.ID).Replicas
	}
	mean := float64(total) / float64(len(elig))
	for _, b := range elig {
		if n := m.Load(b.ID).Replicas; math.Abs(float64(n)-mean) >= 1 {
			t.Errorf("broker %d holds %d replicas, mean %.2f", b.ID, n, mean)
		}
	}
}

func TestAddBrokerMovesTheSmallestPartitions(t *testing.T) {
	m := skewed(3, 18)
	plan, err := Make(m, Options{AddBrokers: []int32{3}})
	if err != nil {
		t.Fatal(err)
	}
	withinOneOfMean(t, plan.After)
	// 36+27 replicas over 3 brokers: mean 21; broker 3 has 9 and takes 12,
	// the 12 smallest partitions (1..12 MiB) at best.
	want := int64(78 * mib)
	if plan.LowerBound != want || plan.BytesToMove != want || plan.Moves() != 12 {
		t.Fatalf("moves %d, bytes %d, lower bound %d; want 12 moves of %d", plan.Moves(), plan.BytesToMove, plan.LowerBound, want)
	}
	for _, c := range plan.Changes {
		if len(c.Added) > 0 && (len(c.Added) != 1 || c.Added[0] != 3) {
			t.Fatalf("%s: %v -> %v moved onto an old broker", c.TP, c.Before, c.After)
		}
	}
	if l := plan.After.Load(3).Leaders; l < 6 {
		t.Errorf("broker 3 leads %d partitions after the plan", l)
	}
	for _, g := range plan.Goals {
		if g.Name == ReplicaDistribution && (g.Before == 0 || g.After != 0) {
			t.Errorf("%+v", g)
		}
	}
}

func TestRemoveBrokerDrainsIt(t *testing.T) {
	m := skewed(4, 12)
	plan, err := Make(m, Options{RemoveBrokers: []int32{2}})
	if err != nil {
		t.Fatal(err)
	}
	if n := plan.After.Load(2).Replicas; n != 0 {
		t.Fatalf("broker 2 keeps %d replicas", n)
	}
	// Only broker 2's replicas move (broker 1 keeps its 21); they go where
	// there is least: brokers 3 and 4 end even.
	if a, b := plan.After.Load(3).Replicas, plan.After.Load(4).Replicas; a != 15 || b != 15 {
		t.Fatalf("brokers 3 and 4 hold %d and %d replicas, want 15 each", a, b)
	}
	for _, c := range plan.Changes {
		for _, r := range c.Before {
			if r != 2 && !slices.Contains(c.After, r) {
				t.Fatalf("%s: %v -> %v moved a replica off broker %d, which stays", c.TP, c.Before, c.After, r)
			}
		}
	}
}

func TestFullRebalanceBalancesCountsAndDisk(t *testing.T) {
	m := skewed(4, 20)
	plan, err := Make(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	withinOneOfMean(t, plan.After)
	for _, g := range plan.Goals {
		if g.Applies && g.After > g.Before {
			t.Errorf("%s got worse: %v -> %v", g.Name, g.Before, g.After)
		}
		if g.Name == DiskUsageDistribution && g.After > 0 {
			t.Errorf("disk still unbalanced: %v", diskLoads(plan.After))
		}
	}
}

func diskLoads(m *Model) string {
	s := ""
	for _, b := range m.Brokers {
		s += fmt.Sprintf("%d:%dMiB ", b.ID, m.Load(b.ID).Disk/mib)
	}
	return s
}

func TestRackAwareness(t *testing.T) {
	m := &Model{MaxReplicasPerBroker: 10000, DiskCapacityThreshold: 0.8, BalanceThreshold: 1.1}
	for i, rack := range []string{"a", "a", "b", "b"} {
		m.Brokers = append(m.Brokers, &Broker{ID: int32(i + 1), Rack: rack})
	}
	for i := 0; i < 4; i++ {
		m.Partitions = append(m.Partitions, &Partition{TP: topicpart.TP{Topic: "t", Partition: int32(i)}, Replicas: []int32{1, 2}, Leader: 1, Size: mib})
	}
	m.index()
	if rackViolation(m) != 4 {
		t.Fatalf("rack violation %v", rackViolation(m))
	}
	plan, err := Make(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan.After.Partitions {
		if plan.After.rackOf(p.Replicas[0]) == plan.After.rackOf(p.Replicas[1]) {
			t.Fatalf("%s still on one rack: %v", p.TP, p.Replicas)
		}
	}
	withinOneOfMean(t, plan.After)
}

func TestMakeRefusesImpossiblePlans(t *testing.T) {
	m := skewed(2, 4)
	if _, err := Make(m, Options{RemoveBrokers: []int32{2}}); err == nil {
		t.Fatal("draining one of two brokers under RF 2 accepted")
	}
	if _, err := Make(m, Options{AddBrokers: []int32{9}}); err == nil {
		t.Fatal("unknown broker accepted")
	}
}
