package znode

import (
	"fmt"
)

// TopicPartition names one partition in admin and notification znodes,
// written as {"topic":"t","partition":0}.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) object() *object {
	var o object
	o.field("topic", tp.Topic)
	o.field("partition", tp.Partition)
	return &o
}

type tpJSON struct {
	Topic     *string `json:"topic"`
	Partition *int32  `json:"partition"`
}

func (j tpJSON) get(what string) (TopicPartition, error) {
	if j.Topic == nil || j.Partition == nil || *j.Topic == "" || *j.Partition < 0 {
		return TopicPartition{}, parseErr(what, "entry without topic and partition")
	}
	return TopicPartition{Topic: *j.Topic, Partition: *j.Partition}, nil
}

// partitionList encodes {"version":v,"partitions":[{"topic":..,"partition":..},..]}.
func partitionList(what string, version int, tps []TopicPartition) ([]byte, error) {
	var list []byte
	list = append(list, '[')
	for i, tp := range tps {
		if i > 0 {
			list = append(list, ',')
		}
		b, err := tp.object().bytes()
		if err != nil {
			return nil, marshalErr(what, err)
		}
		list = append(list, b...)
	}
	list = append(list, ']')
	var o object
	o.field("version", version)
	o.raw("partitions", list)
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr(what, err)
	}
	return out, nil
}

func parsePartitionList(what string, data []byte) ([]TopicPartition, error) {
	var v struct {
		Partitions []tpJSON `json:"partitions"`
	}
	if err := decode(what, data, &v); err != nil {
		return nil, err
	}
	out := make([]TopicPartition, 0, len(v.Partitions))
	for _, j := range v.Partitions {
		tp, err := j.get(what)
		if err != nil {
			return nil, err
		}
		out = append(out, tp)
	}
	return out, nil
}

// PartitionReassignment is one entry of /admin/reassign_partitions.
type PartitionReassignment struct {
	Topic     string
	Partition int32
	Replicas  []int32
	LogDirs   []string // optional, "any" per replica; ignored by a ZK-mode broker
}

// ReassignPartitions is /admin/reassign_partitions (the pre-2.4 way to
// reassign, still honoured by the controller), deleted when done:
//
//	{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}
//
// Tools may add "log_dirs":["any",..] per entry.
type ReassignPartitions struct {
	Partitions []PartitionReassignment
}

// Marshal encodes the request; log_dirs is written only when set.
func (r ReassignPartitions) Marshal() ([]byte, error) {
	const what = "reassign partitions"
	list := []byte{'['}
	for i, p := range r.Partitions {
		if p.Topic == "" || p.Partition < 0 || len(p.Replicas) == 0 {
			return nil, marshalErr(what, fmt.Errorf("entry %d: need topic, partition and replicas", i))
		}
		if p.LogDirs != nil && len(p.LogDirs) != len(p.Replicas) {
			return nil, marshalErr(what, fmt.Errorf("entry %d: %d log dirs for %d replicas", i, len(p.LogDirs), len(p.Replicas)))
		}
		if i > 0 {
			list = append(list, ',')
		}
		o := TopicPartition{p.Topic, p.Partition}.object()
		o.field("replicas", p.Replicas)
		if p.LogDirs != nil {
			o.field("log_dirs", p.LogDirs)
		}
		b, err := o.bytes()
		if err != nil {
			return nil, marshalErr(what, err)
		}
		list = append(list, b...)
	}
	list = append(list, ']')
	var o object
	o.field("version", 1)
	o.raw("partitions", list)
	out, err := o.bytes()
	if err != nil {
		return nil, marshalErr(what, err)
	}
	return out, nil
}

// Unmarshal decodes the request.
func (r *ReassignPartitions) Unmarshal(data []byte) error {
	const what = "/admin/reassign_partitions"
	var v struct {
		Partitions []struct {
			tpJSON
			Replicas []int32  `json:"replicas"`
			LogDirs  []string `json:"log_dirs"`
		} `json:"partitions"`
	}
	if err := decode(what, data, &v); err != nil {
		return err
	}
	out := ReassignPartitions{Partitions: make([]PartitionReassignment, 0, len(v.Partitions))}
	for _, e := range v.Partitions {
		tp, err := e.get(what)
		if err != nil {
			return err
		}
		if e.Replicas == nil {
			return parseErr(what, "%s-%d has no replicas", tp.Topic, tp.Partition)
		}
		out.Partitions = append(out.Partitions, PartitionReassignment{Topic: tp.Topic, Partition: tp.Partition, Replicas: e.Replicas, LogDirs: e.LogDirs})
	}
	*r = out
	return nil
}

// ParseReassignPartitions decodes /admin/reassign_partitions.
func ParseReassignPartitions(data []byte) (ReassignPartitions, error) {
	var r ReassignPartitions
	err := r.Unmarshal(data)
	return r, err
}

// PreferredReplicaElection is /admin/preferred_replica_election, deleted
// when done:
//
//	{"version":1,"partitions":[{"topic":"t","partition":0}]}
type PreferredReplicaElection struct {
	Partitions []TopicPartition
}

// Marshal encodes the request.
func (p PreferredReplicaElection) Marshal() ([]byte, error) {
	return partitionList("preferred replica election", 1, p.Partitions)
}

// Unmarshal decodes the request.
func (p *PreferredReplicaElection) Unmarshal(data []byte) error {
	tps, err := parsePartitionList("/admin/preferred_replica_election", data)
	if err != nil {
		return err
	}
	p.Partitions = tps
	return nil
}

// ParsePreferredReplicaElection decodes /admin/preferred_replica_election.
func ParsePreferredReplicaElection(data []byte) (PreferredReplicaElection, error) {
	var p PreferredReplicaElection
	err := p.Unmarshal(data)
	return p, err
}
