// Package topicadmin writes topic changes into the metadata store the way
// Kafka 2.x's AdminZkClient does: a topic's config and assignment on
// creation, new partitions' assignment, a deletion request. It is not the
// controller: any broker uses it (CreateTopics, auto-creation wherever
// Metadata or FindCoordinator asks), and the controller picks the changes
// up through its watches.
package topicadmin

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/meta/znode"
	"kafgo/internal/placement"
	"kafgo/internal/topicname"
	"kafgo/internal/uuid"
)

// Admin writes topic changes into Store.
type Admin struct {
	Store meta.Store
}

// TopicSpec is a topic to create. Assignment, when set, fixes the replicas
// of every partition; otherwise Partitions and ReplicationFactor are used.
type TopicSpec struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	Assignment        map[int32][]int32
	Configs           map[string]string
}

// LiveBrokers reads the registered brokers with their racks.
func (a *Admin) LiveBrokers(ctx context.Context) ([]placement.BrokerRack, error) {
	ids, _, err := a.Store.Children(ctx, znode.BrokerIDsPath)
	if err != nil {
		return nil, err
	}
	var out []placement.BrokerRack
	for _, s := range ids {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			continue
		}
		data, _, err := a.Store.Get(ctx, znode.BrokerIDPath(int32(n)))
		if err != nil {
			continue
		}
		reg, err := znode.ParseBrokerInfo(data)
		if err != nil {
			continue
		}
		out = append(out, placement.BrokerRack{ID: int32(n), Rack: reg.Rack})
	}
	slices.SortFunc(out, func(x, y placement.BrokerRack) int { return int(x.ID - y.ID) })
	return out, nil
}

// CreateTopic validates spec against the live cluster and, unless
// validateOnly, writes its config and assignment. It returns the assignment.
func (a *Admin) CreateTopic(ctx context.Context, spec TopicSpec, validateOnly bool) (map[int32][]int32, error) {
	if err := topicname.Validate(spec.Name); err != nil {
		return nil, kafkaerr.New(kerr.InvalidTopicException, "%v", err)
	}
	existing, _, err := a.Store.Children(ctx, znode.BrokerTopicsPath)
	if err != nil && !errors.Is(err, meta.ErrNoNode) {
		return nil, err
	}
	for _, name := range existing {
		if name == spec.Name {
			// Kafka tells a topic still being deleted apart: retrying
			// shortly will succeed.
			if marked, _, err := a.Store.Exists(ctx, znode.DeleteTopicPath(name)); err == nil && marked {
				return nil, kafkaerr.New(kerr.TopicAlreadyExists, "Topic '%s' is marked for deletion.", spec.Name)
			}
			return nil, kafkaerr.New(kerr.TopicAlreadyExists, "Topic '%s' already exists.", spec.Name)
		}
		if collides(name, spec.Name) {
			return nil, kafkaerr.New(kerr.InvalidTopicException, "Topic '%s' collides with existing topic: %s", spec.Name, name)
		}
	}
	brokers, err := a.LiveBrokers(ctx)
	if err != nil {
		return nil, err
	}
	assignment := spec.Assignment
	if len(assignment) > 0 {
		if spec.Partitions > 0 || spec.ReplicationFactor > 0 {
			return nil, kafkaerr.New(kerr.InvalidRequest, "Both numPartitions or replicationFactor and replicasAssignment were set. Both cannot be used at the same time.")
		}
		if err := validateAssignment(assignment, 0, brokers); err != nil {
			return nil, err
		}
	} else {
		if spec.Partitions <= 0 {
			return nil, kafkaerr.New(kerr.InvalidPartitions, "Number of partitions must be larger than 0.")
		}
		if spec.ReplicationFactor <= 0 {
			return nil, kafkaerr.New(kerr.InvalidReplicationFactor, "Replication factor must be larger than 0.")
		}
		if int(spec.ReplicationFactor) > len(brokers) {
			return nil, kafkaerr.New(kerr.InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.", spec.ReplicationFactor, len(brokers))
		}
		assignment, err = placement.AssignReplicas(brokers, int(spec.Partitions), int(spec.ReplicationFactor), 0, -1, -1)
		if err != nil {
			return nil, kafkaerr.New(kerr.InvalidReplicaAssignment, "%v", err)
		}
	}
	if validateOnly {
		return assignment, nil
	}
	id, err := znode.NewTopicID()
	if err != nil {
		return nil, err
	}
	return assignment, a.writeTopic(ctx, spec.Name, id, assignment, spec.Configs)
}

func (a *Admin) writeTopic(ctx context.Context, name string, id uuid.UUID, assignment map[int32][]int32, configs map[string]string) error {
	cfg, err := dynconfig.MarshalConfig(configs)
	if err != nil {
		return err
	}
	if err := meta.EnsurePath(ctx, a.Store, dynconfig.Root+"/"+dynconfig.Topics); err != nil {
		return err
	}
	// The config goes first, as Kafka writes it: the controller may act on
	// the assignment at once and brokers then read the config.
	if _, err := a.Store.Create(ctx, dynconfig.TopicPath(name), cfg, meta.Persistent); errors.Is(err, meta.ErrNodeExists) {
		if _, err := a.Store.Set(ctx, dynconfig.TopicPath(name), cfg, -1); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	data, err := znode.TopicAssignment{TopicID: id, Partitions: assignment}.Marshal()
	if err != nil {
		return err
	}
	if err := meta.EnsurePath(ctx, a.Store, znode.BrokerTopicsPath); err != nil {
		return err
	}
	if _, err := a.Store.Create(ctx, znode.TopicPath(name), data, meta.Persistent); err != nil {
		if errors.Is(err, meta.ErrNodeExists) {
			return kafkaerr.New(kerr.TopicAlreadyExists, "Topic '%s' already exists.", name)
		}
		return err
	}
	return nil
}

// collides reports Kafka's metric-name collision: names equal once '.' is
// read as '_'.
func collides(a, b string) bool {
	return a != b && strings.ReplaceAll(a, ".", "_") == strings.ReplaceAll(b, ".", "_")
}

func validateAssignment(assignment map[int32][]int32, firstPartition int32, brokers []placement.BrokerRack) error {
	live := map[int32]bool{}
	for _, b := range brokers {
		live[b.ID] = true
	}
	rf := -1
	for i := firstPartition; i < firstPartition+int32(len(assignment)); i++ {
		rs, ok := assignment[i]
		if !ok {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Unexpected existing replica assignment for partitions: partition ids must be consecutive from %d", firstPartition)
		}
		if len(rs) == 0 {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Partition %d has no replicas.", i)
		}
		if rf >= 0 && len(rs) != rf {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Partition %d has different replication factor: %v", i, rs)
		}
		rf = len(rs)
		seen := map[int32]bool{}
		for _, r := range rs {
			if seen[r] {
				return kafkaerr.New(kerr.InvalidReplicaAssignment, "Duplicate replica assignment found: %v", rs)
			}
			seen[r] = true
			if !live[r] {
				return kafkaerr.New(kerr.InvalidReplicaAssignment, "Unknown broker id %d in replica assignment of partition %d.", r, i)
			}
		}
	}
	return nil
}

// AddPartitions grows a topic to total partitions; newAssignment, when set,
// places the added ones (partition ids from the current count).
func (a *Admin) AddPartitions(ctx context.Context, name string, total int32, newAssignment [][]int32, validateOnly bool) error {
	data, stat, err := a.Store.Get(ctx, znode.TopicPath(name))
	if errors.Is(err, meta.ErrNoNode) {
		return kafkaerr.New(kerr.UnknownTopicOrPartition, "The topic '%s' does not exist.", name)
	}
	if err != nil {
		return err
	}
	if ok, _, _ := a.Store.Exists(ctx, znode.DeleteTopicPath(name)); ok {
		return kafkaerr.New(kerr.InvalidTopicException, "The topic '%s' is queued for deletion.", name)
	}
	cur, err := znode.ParseTopicAssignment(data)
	if err != nil {
		return err
	}
	have := int32(len(cur.Partitions))
	if total <= have {
		if total == have {
			return kafkaerr.New(kerr.InvalidPartitions, "Topic already has %d partitions.", have)
		}
		return kafkaerr.New(kerr.InvalidPartitions, "Topic currently has %d partitions, %d would not be an increase.", have, total)
	}
	brokers, err := a.LiveBrokers(ctx)
	if err != nil {
		return err
	}
	rf := len(cur.Partitions[0])
	added := map[int32][]int32{}
	if newAssignment != nil {
		if int32(len(newAssignment)) != total-have {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "Increasing the number of partitions by %d but %d assignments provided.", total-have, len(newAssignment))
		}
		for i, rs := range newAssignment {
			added[have+int32(i)] = rs
		}
		if err := validateAssignment(added, have, brokers); err != nil {
			return err
		}
	} else {
		if rf > len(brokers) {
			return kafkaerr.New(kerr.InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.", rf, len(brokers))
		}
		added, err = placement.AssignReplicas(brokers, int(total-have), rf, int(have), -1, -1)
		if err != nil {
			return kafkaerr.New(kerr.InvalidReplicaAssignment, "%v", err)
		}
	}
	if validateOnly {
		return nil
	}
	for p, rs := range added {
		cur.Partitions[p] = rs
	}
	out, err := cur.Marshal()
	if err != nil {
		return err
	}
	if _, err := a.Store.Set(ctx, znode.TopicPath(name), out, stat.Version); err != nil {
		if errors.Is(err, meta.ErrBadVersion) {
			return kafkaerr.New(kerr.ReassignmentInProgress, "The topic '%s' changed concurrently; retry.", name)
		}
		return err
	}
	return nil
}

// TopicExists reports whether a topic is in the store (a topic queued for
// deletion still is, until its deletion completes).
func (a *Admin) TopicExists(ctx context.Context, name string) (bool, error) {
	ok, _, err := a.Store.Exists(ctx, znode.TopicPath(name))
	return ok, err
}

// DeleteTopic queues a topic for deletion by the controller.
func (a *Admin) DeleteTopic(ctx context.Context, name string) error {
	if ok, err := a.TopicExists(ctx, name); err != nil {
		return err
	} else if !ok {
		return kafkaerr.New(kerr.UnknownTopicOrPartition, "This server does not host this topic-partition.")
	}
	if err := meta.EnsurePath(ctx, a.Store, znode.DeleteTopicsPath); err != nil {
		return err
	}
	if _, err := a.Store.Create(ctx, znode.DeleteTopicPath(name), nil, meta.Persistent); err != nil && !errors.Is(err, meta.ErrNodeExists) {
		return err
	}
	return nil
}
