package placement

import (
	"reflect"
	"testing"
)

func TestAssignRackUnawareMatchesKafka(t *testing.T) {
	// Kafka's AdminRackAwareTest/AssignmentTest vector: 5 brokers, 10
	// partitions, RF 3, fixed start index 2 and shift 0.
	brokers := []BrokerRack{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 3}, {ID: 4}}
	got, err := AssignReplicas(brokers, 10, 3, 0, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32][]int32{
		0: {2, 3, 4}, 1: {3, 4, 0}, 2: {4, 0, 1}, 3: {0, 1, 2}, 4: {1, 2, 3},
		5: {2, 4, 0}, 6: {3, 0, 1}, 7: {4, 1, 2}, 8: {0, 2, 3}, 9: {1, 3, 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("assignment\n got %v\nwant %v", got, want)
	}
}

func TestAssignSpreadsLeadersAndAvoidsDuplicates(t *testing.T) {
	brokers := []BrokerRack{{ID: 1}, {ID: 2}, {ID: 3}}
	got, err := AssignReplicas(brokers, 6, 3, 0, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	leaders := map[int32]int{}
	for p, rs := range got {
		seen := map[int32]bool{}
		for _, r := range rs {
			if seen[r] {
				t.Fatalf("partition %d has duplicate replica %d: %v", p, r, rs)
			}
			seen[r] = true
		}
		leaders[rs[0]]++
	}
	for _, b := range brokers {
		if leaders[b.ID] != 2 {
			t.Fatalf("leaders not spread evenly: %v", leaders)
		}
	}
}

func TestAssignRackAwareUsesEveryRack(t *testing.T) {
	brokers := []BrokerRack{{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "c"}, {6, "c"}}
	got, err := AssignReplicas(brokers, 12, 3, 0, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	rack := map[int32]string{1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}
	for p, rs := range got {
		racks := map[string]bool{}
		for _, r := range rs {
			racks[rack[r]] = true
		}
		if len(racks) != 3 || len(rs) != 3 {
			t.Fatalf("partition %d replicas %v span racks %v", p, rs, racks)
		}
	}
}

func TestAssignErrors(t *testing.T) {
	if _, err := AssignReplicas([]BrokerRack{{ID: 1}}, 1, 2, 0, -1, -1); err == nil {
		t.Fatal("rf above broker count accepted")
	}
	if _, err := AssignReplicas([]BrokerRack{{1, "a"}, {ID: 2}}, 1, 1, 0, -1, -1); err == nil {
		t.Fatal("partial rack information accepted")
	}
	if _, err := AssignReplicas([]BrokerRack{{ID: 1}}, 0, 1, 0, -1, -1); err == nil {
		t.Fatal("zero partitions accepted")
	}
}
