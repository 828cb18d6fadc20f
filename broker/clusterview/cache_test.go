package clusterview

import (
	"testing"

	"kafgo/internal/uuid"
)

func TestApplyIncrementalAndDelete(t *testing.T) {
	c := New()
	if v := c.View(); v.ControllerID != -1 || len(v.Brokers) != 0 {
		t.Fatalf("fresh cache: %+v", v)
	}
	idA := [16]byte{1}
	changed := c.Changed()
	c.Apply(Update{
		ControllerID: 1, ControllerEpoch: 3,
		Brokers: []Broker{{ID: 1, Endpoints: []Endpoint{{"PLAINTEXT", "127.0.0.1", 9092}}}, {ID: 2}},
		Partitions: []Partition{
			{Topic: "a", Partition: 0, Leader: 1, ISR: []int32{1, 2}, Replicas: []int32{1, 2}},
			{Topic: "a", Partition: 1, Leader: 2, ISR: []int32{2}, Replicas: []int32{2, 1}},
		},
		TopicIDs: map[string]uuid.UUID{"a": idA},
	})
	select {
	case <-changed:
	default:
		t.Fatal("Changed channel not closed by Apply")
	}
	v1 := c.View()
	if v1.ControllerID != 1 || len(v1.Brokers) != 2 {
		t.Fatalf("view after first update: %+v", v1)
	}
	if tp, ok := v1.TopicByID(idA); !ok || tp.Name != "a" || len(tp.Partitions) != 2 {
		t.Fatalf("topic by id: %+v %v", tp, ok)
	}
	e, ok := v1.Brokers[1].Endpoint("PLAINTEXT")
	if !ok || e.Port != 9092 {
		t.Fatalf("endpoint: %+v %v", e, ok)
	}

	// Incremental: only partition 1 changes; the brokers list replaces.
	c.Apply(Update{
		ControllerID: 2, ControllerEpoch: 4,
		Brokers:    []Broker{{ID: 2}},
		Partitions: []Partition{{Topic: "a", Partition: 1, Leader: 2, LeaderEpoch: 1, ISR: []int32{2}, Replicas: []int32{2, 1}}},
	})
	v2 := c.View()
	if len(v2.Brokers) != 1 || v2.ControllerID != 2 {
		t.Fatalf("brokers not replaced: %+v", v2.Brokers)
	}
	if p, _ := v2.Partition("a", 0); p == nil || p.Leader != 1 {
		t.Fatalf("partition 0 lost in incremental update: %+v", p)
	}
	if p, _ := v2.Partition("a", 1); p.LeaderEpoch != 1 {
		t.Fatalf("partition 1 not updated: %+v", p)
	}
	// The old view is untouched.
	if p, _ := v1.Partition("a", 1); p.LeaderEpoch != 0 || len(v1.Brokers) != 2 {
		t.Fatalf("old view mutated: %+v", p)
	}

	deleted := c.Apply(Update{
		ControllerID: 2, ControllerEpoch: 4, Brokers: []Broker{{ID: 2}},
		Partitions: []Partition{{Topic: "a", Partition: 0, Leader: LeaderDuringDelete}, {Topic: "a", Partition: 1, Leader: LeaderDuringDelete}},
	})
	if len(deleted) != 2 {
		t.Fatalf("deleted = %v", deleted)
	}
	if _, ok := c.View().Topic("a"); ok {
		t.Fatal("topic survives deletion of all partitions")
	}
	if _, ok := c.View().TopicByID(idA); ok {
		t.Fatal("topic id survives deletion")
	}
}
