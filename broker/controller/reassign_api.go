package controller

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
)

// AlterPartitionAssignments starts, replaces or cancels (null replicas)
// partition reassignments (KIP-455). The answer comes as soon as each move
// has started; ListPartitionReassignments shows its progress.
func (c *Controller) AlterPartitionAssignments(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest) (*kmsg.AlterPartitionAssignmentsResponse, error) {
	return call(ctx, c, func() (*kmsg.AlterPartitionAssignmentsResponse, error) {
		resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		if c.st == nil {
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil
		}
		b := c.newBatch()
		submitted := map[tp]bool{}
		for _, rt := range req.Topics {
			ot := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			ot.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				p := tp{Topic: rt.Topic, Partition: rp.Partition}
				op := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
				op.Partition = rp.Partition
				if err := c.reassign(b, p, rp.Replicas); err != nil {
					op.ErrorCode = kafkaerr.Code(err).Code
					op.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
				} else {
					submitted[p] = true
				}
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		}
		b.send()
		// The latest request wins over one left in the legacy znode, as in
		// Kafka: a later pass over the znode must not undo it.
		c.pruneReassignZnode(submitted)
		return resp, nil
	})
}

// ListPartitionReassignments lists the moves in flight, of every partition
// when req.Topics is null, else of the named partitions (the ones not moving,
// or unknown, are left out, as Kafka does).
func (c *Controller) ListPartitionReassignments(ctx context.Context, req *kmsg.ListPartitionReassignmentsRequest) (*kmsg.ListPartitionReassignmentsResponse, error) {
	return call(ctx, c, func() (*kmsg.ListPartitionReassignmentsResponse, error) {
		resp := req.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		st := c.st
		if st == nil {
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil
		}
		var parts []tp
		if req.Topics == nil {
			parts = st.reassigningPartitions()
		} else {
			for _, rt := range req.Topics {
				for _, p := range rt.Partitions {
					q := tp{Topic: rt.Topic, Partition: p}
					if st.deleting[q.Topic] == nil && st.partitionAssignment(q).reassigning() && !slices.Contains(parts, q) {
						parts = append(parts, q)
					}
				}
			}
		}
		byTopic := map[string]int{}
		for _, p := range parts {
			i := partid.TopicSlot(byTopic, p.Topic, func() {
				t := kmsg.NewListPartitionReassignmentsResponseTopic()
				t.Topic = p.Topic
				resp.Topics = append(resp.Topics, t)
			})
			a := st.partitionAssignment(p)
			rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			rp.Partition = p.Partition
			rp.Replicas = slices.Clone(a.replicas)
			rp.AddingReplicas = slices.Clone(a.adding)
			rp.RemovingReplicas = slices.Clone(a.removing)
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp, nil
	})
}
