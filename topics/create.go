package topics

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const collisionWarning = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both."

func create(ctx context.Context, cl *kgo.Client, o Options, out io.Writer) error {
	if o.PartitionsSet && o.Partitions < 1 {
		return fmt.Errorf("The partitions must be greater than 0")
	}
	if o.RFSet && (o.ReplicationFactor < 1 || o.ReplicationFactor > 32767) {
		return fmt.Errorf("The replication factor must be between 1 and 32767 inclusive")
	}
	configs, err := parseConfigs(o.Configs)
	if err != nil {
		return err
	}
	var assignment [][]int32
	if o.AssignmentSet {
		if assignment, err = ParseReplicaAssignment(o.ReplicaAssignment); err != nil {
			return err
		}
	}
	if strings.ContainsAny(o.Topic, "._") {
		fmt.Fprintln(out, collisionWarning)
	}

	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = requestTimeoutMillis
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = o.Topic
	// -1 asks the broker for its defaults (CreateTopics v4+, KIP-464),
	// which is what an absent flag means.
	t.NumPartitions, t.ReplicationFactor = -1, -1
	if o.PartitionsSet {
		t.NumPartitions = o.Partitions
	}
	if o.RFSet {
		t.ReplicationFactor = int16(o.ReplicationFactor)
	}
	for p, replicas := range assignment {
		a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		a.Partition = int32(p)
		a.Replicas = replicas
		t.ReplicaAssignment = append(t.ReplicaAssignment, a)
	}
	for _, k := range sortedKeys(configs) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name = k
		v := configs[k]
		c.Value = &v
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)

	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("creating topic %s: %w", o.Topic, err)
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("creating topic %s: broker answered for %d topics", o.Topic, len(resp.Topics))
	}
	rt := resp.Topics[0]
	if err := brokerError(o.Topic, rt.ErrorCode, rt.ErrorMessage); err != nil {
		if o.IfNotExists && rt.ErrorCode == kerr.TopicAlreadyExists.Code {
			return nil
		}
		return err
	}
	fmt.Fprintf(out, "Created topic %s.\n", o.Topic)
	return nil
}
