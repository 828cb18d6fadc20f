package topics

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// alter raises the partition count of every topic --topic matches. A
// --replica-assignment lists all partitions, existing ones included, as in
// Kafka; only the entries past the current count are sent.
func alter(ctx context.Context, cl *kgo.Client, adm *kadm.Client, o Options) error {
	md, names, err := matchingTopics(ctx, adm, o)
	if err != nil {
		return err
	}
	if err := ensureExists(o, names); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	var assignment [][]int32
	if o.AssignmentSet {
		if assignment, err = ParseReplicaAssignment(o.ReplicaAssignment); err != nil {
			return err
		}
	}
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis = requestTimeoutMillis
	for _, name := range names {
		existing := len(md.Topics[name].Partitions)
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic = name
		t.Count = o.Partitions
		if assignment != nil {
			if len(assignment) < int(o.Partitions) {
				return fmt.Errorf("The replica assignment lists %d partitions, fewer than the requested %d", len(assignment), o.Partitions)
			}
			for _, replicas := range assignment[min(existing, len(assignment)):o.Partitions] {
				a := kmsg.NewCreatePartitionsRequestTopicAssignment()
				a.Replicas = replicas
				t.Assignment = append(t.Assignment, a)
			}
		}
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("creating partitions: %w", err)
	}
	for _, rt := range resp.Topics {
		if err := brokerError(rt.Topic, rt.ErrorCode, rt.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}
