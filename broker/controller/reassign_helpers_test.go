package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/meta/znode"
	"kafgo/broker/topicadmin"
	"kafgo/internal/testing/testwait"
)

// stopped reports whether broker was sent StopReplica for p with delete.
func (f *fakeBrokers) stopped(broker int32, p tp) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, req := range f.sent[broker] {
		if r, ok := req.(*kmsg.StopReplicaRequest); ok {
			for _, t := range r.Topics {
				for _, ps := range t.PartitionStates {
					if t.Topic == p.Topic && ps.Partition == p.Partition && ps.Delete {
						return true
					}
				}
			}
		}
	}
	return false
}

// lastMetadataReplicas is the replica list of p in the newest
// UpdateMetadata sent to broker.
func (f *fakeBrokers) lastMetadataReplicas(broker int32, p tp) ([]int32, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reqs := f.sent[broker]
	for i := len(reqs) - 1; i >= 0; i-- {
		if r, ok := reqs[i].(*kmsg.UpdateMetadataRequest); ok {
			for _, ts := range r.TopicStates {
				for _, ps := range ts.PartitionStates {
					if ts.Topic == p.Topic && ps.Partition == p.Partition {
						return ps.Replicas, true
					}
				}
			}
		}
	}
	return nil, false
}

// topicZnode reads /brokers/topics/<topic> as stored.
func (h *harness) topicZnode(topic string) znode.TopicAssignment {
	h.t.Helper()
	data, _, err := h.root.Get(context.Background(), znode.TopicPath(topic))
	if err != nil {
		h.t.Fatalf("topic znode %s: %v", topic, err)
	}
	a, err := znode.ParseTopicAssignment(data)
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

// createTopic creates a topic with a fixed assignment and waits until every
// partition is initialised.
func (h *harness) createTopic(name string, assignment map[int32][]int32) {
	h.t.Helper()
	ctx := context.Background()
	if _, err := (&topicadmin.Admin{Store: h.root}).CreateTopic(ctx, topicadmin.TopicSpec{Name: name, Assignment: assignment}, false); err != nil {
		h.t.Fatal(err)
	}
	for p := range assignment {
		testwait.Until(h.t, 5*time.Second, fmt.Sprintf("%s-%d initialised", name, p), func() bool {
			_, _, err := h.root.Get(ctx, znode.PartitionStatePath(name, p))
			return err == nil
		})
	}
}

// reassignReq builds an AlterPartitionAssignments request; a nil replica
// list cancels.
func reassignReq(topic string, moves map[int32][]int32) *kmsg.AlterPartitionAssignmentsRequest {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = topic
	ids := make([]int32, 0, len(moves))
	for p := range moves {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	for _, p := range ids {
		rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		rp.Partition, rp.Replicas = p, moves[p]
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	return req
}

// reassign sends one partition's request and returns its error code.
func (h *harness) reassign(n *node, p tp, replicas []int32) *kerr.Error {
	h.t.Helper()
	resp, err := n.ctl.AlterPartitionAssignments(context.Background(), reassignReq(p.Topic, map[int32][]int32{p.Partition: replicas}))
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.ErrorCode != 0 {
		return kerr.ErrorForCode(resp.ErrorCode).(*kerr.Error)
	}
	if code := resp.Topics[0].Partitions[0].ErrorCode; code != 0 {
		return kerr.ErrorForCode(code).(*kerr.Error)
	}
	return nil
}

// listed returns what ListPartitionReassignments says about every moving
// partition, as "topic-p:replicas/adding/removing".
func (h *harness) listed(n *node) []string {
	h.t.Helper()
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	resp, err := n.ctl.ListPartitionReassignments(context.Background(), req)
	if err != nil || resp.ErrorCode != 0 {
		h.t.Fatalf("list reassignments: %v %d", err, resp.ErrorCode)
	}
	var out []string
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d:%v/%v/%v", t.Topic, p.Partition, p.Replicas, p.AddingReplicas, p.RemovingReplicas))
		}
	}
	return out
}

// setISR is the partition leader proposing isr through AlterPartition, as a
// leader does when followers catch up.
func (h *harness) setISR(n *node, p tp, isr []int32) {
	h.t.Helper()
	ctx := context.Background()
	data, stat, err := h.root.Get(ctx, znode.PartitionStatePath(p.Topic, p.Partition))
	if err != nil {
		h.t.Fatal(err)
	}
	st, err := znode.ParsePartitionState(data)
	if err != nil {
		h.t.Fatal(err)
	}
	_, reg, err := h.root.Get(ctx, znode.BrokerIDPath(st.Leader))
	if err != nil {
		h.t.Fatal(err)
	}
	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version = 1
	req.BrokerID, req.BrokerEpoch = st.Leader, reg.Czxid
	rt := kmsg.NewAlterPartitionRequestTopic()
	rt.Topic = p.Topic
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition, rp.LeaderEpoch, rp.PartitionEpoch, rp.NewISR = p.Partition, st.LeaderEpoch, stat.Version, isr
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := n.ctl.AlterPartition(ctx, req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.ErrorCode != 0 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		h.t.Fatalf("AlterPartition %s isr %v: %v %v", p, isr, kerr.ErrorForCode(resp.ErrorCode), kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode))
	}
}

// waitLeaderAndISR waits for broker to be sent p's state at leaderEpoch and
// returns it.
func (h *harness) waitLeaderAndISR(broker int32, p tp, leaderEpoch int32) kmsg.LeaderAndISRRequestTopicPartition {
	h.t.Helper()
	var got kmsg.LeaderAndISRRequestTopicPartition
	testwait.Until(h.t, 5*time.Second, fmt.Sprintf("LeaderAndIsr epoch %d for %s to %d", leaderEpoch, p, broker), func() bool {
		ps, _, ok := h.fake.lastLeaderAndISR(broker, p)
		got = ps
		return ok && ps.LeaderEpoch == leaderEpoch
	})
	return got
}

// others returns ids without the excluded ones, in order.
func others(ids []int32, exclude ...int32) []int32 {
	var out []int32
	for _, id := range ids {
		if !slices.Contains(exclude, id) {
			out = append(out, id)
		}
	}
	return out
}
