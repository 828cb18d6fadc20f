package znode

import (
	"encoding/json"
	"fmt"
	"sort"

	"kafgo/internal/uuid"
)

// TopicAssignment is /brokers/topics/<topic>: the replicas of every
// partition, first replica = preferred leader.
//
//	v1 {"version":1,"partitions":{"0":[1,2,3]}}
//	v2 {"version":2,"partitions":{..},"adding_replicas":{..},"removing_replicas":{..}}
//	v3 {"version":3,"topic_id":"<uuid>","partitions":{..},"adding_replicas":{..},"removing_replicas":{..}}
//
// v2 (Kafka 2.4, KIP-455) adds the reassignment maps (empty when none), v3
// (2.8, KIP-516) the topic id. Marshal writes the fields in this order with
// partition keys in numeric order.
type TopicAssignment struct {
	// Version 0 on Marshal means 3 when TopicID is set, else 2.
	Version          int
	TopicID          uuid.UUID // uuid.Zero when absent (v1/v2)
	Partitions       map[int32][]int32
	AddingReplicas   map[int32][]int32
	RemovingReplicas map[int32][]int32
}

// Marshal encodes the assignment.
func (a TopicAssignment) Marshal() ([]byte, error) {
	version := a.Version
	if version == 0 {
		version = 2
		if !a.TopicID.IsZero() {
			version = 3
		}
	}
	if version < 1 || version > 3 {
		return nil, marshalErr("topic assignment", fmt.Errorf("version %d: want 1, 2 or 3", version))
	}
	if version == 3 && a.TopicID.IsZero() {
		return nil, marshalErr("topic assignment", fmt.Errorf("version 3 needs a topic id"))
	}
	var o object
	o.field("version", version)
	if version >= 3 {
		o.field("topic_id", a.TopicID.String())
	}
	for _, m := range []struct {
		name string
		v    map[int32][]int32
		min  int
	}{
		{"partitions", a.Partitions, 1},
		{"adding_replicas", a.AddingReplicas, 2},
		{"removing_replicas", a.RemovingReplicas, 2},
	} {
		if version < m.min {
			continue
		}
		b, err := partitionMap(m.v)
		if err != nil {
			return nil, marshalErr("topic assignment", fmt.Errorf("%s: %w", m.name, err))
		}
		o.raw(m.name, b)
	}
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr("topic assignment", err)
	}
	return out, nil
}

// Unmarshal decodes versions 1 to 3 (and later versions' known fields).
// The reassignment maps are never nil after a successful Unmarshal.
func (a *TopicAssignment) Unmarshal(data []byte) error {
	var v struct {
		Version    int             `json:"version"`
		TopicID    *string         `json:"topic_id"`
		Partitions json.RawMessage `json:"partitions"`
		Adding     json.RawMessage `json:"adding_replicas"`
		Removing   json.RawMessage `json:"removing_replicas"`
	}
	const what = "/brokers/topics/<topic>"
	if err := decode(what, data, &v); err != nil {
		return err
	}
	if len(v.Partitions) == 0 {
		return parseErr(what, "no partitions in %s", data)
	}
	out := TopicAssignment{Version: v.Version}
	var err error
	if out.Partitions, err = parsePartitionMap(v.Partitions); err != nil {
		return parseErr(what, "partitions: %v", err)
	}
	if out.AddingReplicas, err = parsePartitionMap(v.Adding); err != nil {
		return parseErr(what, "adding_replicas: %v", err)
	}
	if out.RemovingReplicas, err = parsePartitionMap(v.Removing); err != nil {
		return parseErr(what, "removing_replicas: %v", err)
	}
	if v.TopicID != nil && *v.TopicID != "" {
		if out.TopicID, err = uuid.Parse(*v.TopicID); err != nil {
			return parseErr(what, "topic_id: %v", err)
		}
	}
	*a = out
	return nil
}

// ParseTopicAssignment decodes /brokers/topics/<topic>.
func ParseTopicAssignment(data []byte) (TopicAssignment, error) {
	var a TopicAssignment
	err := a.Unmarshal(data)
	return a, err
}

// PartitionIDs returns the assignment's partition ids in order.
func (a TopicAssignment) PartitionIDs() []int32 {
	ids := make([]int32, 0, len(a.Partitions))
	for p := range a.Partitions {
		ids = append(ids, p)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// PartitionState is /brokers/topics/<t>/partitions/<p>/state, written by
// the controller (and in Kafka 2.x before AlterIsr by the leader, with a
// conditional Set on the znode version):
//
//	{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
//
// Leader -1 means no leader. The znode's Stat.Version is the partition's
// "zkVersion" (partition epoch) carried in LeaderAndIsr.
type PartitionState struct {
	ControllerEpoch int32
	Leader          int32
	LeaderEpoch     int32
	ISR             []int32
}

// NoLeader is the leader id of a partition without a leader.
const NoLeader int32 = -1

// Marshal encodes the state in Kafka's field order.
func (s PartitionState) Marshal() ([]byte, error) {
	var o object
	o.field("controller_epoch", s.ControllerEpoch)
	o.field("leader", s.Leader)
	o.field("version", 1)
	o.field("leader_epoch", s.LeaderEpoch)
	o.field("isr", ints(s.ISR))
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr("partition state", err)
	}
	return out, nil
}

// Unmarshal decodes the state; every field is required, as in Kafka's
// TopicPartitionStateZNode.decode.
func (s *PartitionState) Unmarshal(data []byte) error {
	var v struct {
		ControllerEpoch *int32  `json:"controller_epoch"`
		Leader          *int32  `json:"leader"`
		LeaderEpoch     *int32  `json:"leader_epoch"`
		ISR             []int32 `json:"isr"`
	}
	const what = "partition state"
	if err := decode(what, data, &v); err != nil {
		return err
	}
	if v.ControllerEpoch == nil || v.Leader == nil || v.LeaderEpoch == nil || v.ISR == nil {
		return parseErr(what, "missing controller_epoch, leader, leader_epoch or isr in %s", data)
	}
	*s = PartitionState{ControllerEpoch: *v.ControllerEpoch, Leader: *v.Leader, LeaderEpoch: *v.LeaderEpoch, ISR: v.ISR}
	return nil
}

// ParsePartitionState decodes a partition state znode.
func ParsePartitionState(data []byte) (PartitionState, error) {
	var s PartitionState
	err := s.Unmarshal(data)
	return s, err
}
