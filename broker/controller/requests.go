package controller

import (
	"context"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// AlterPartition applies ISR changes proposed by partition leaders
// (KIP-497). The change is accepted only from the current leader, at the
// current leader epoch and partition epoch, for live assigned replicas.
func (c *Controller) AlterPartition(ctx context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error) {
	return call(ctx, c, func() (*kmsg.AlterPartitionResponse, error) {
		resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
		st := c.st
		if st == nil {
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil
		}
		if info, ok := st.live[req.BrokerID]; !ok || (req.BrokerEpoch >= 0 && info.epoch != req.BrokerEpoch) {
			resp.ErrorCode = kerr.StaleBrokerEpoch.Code
			return resp, nil
		}
		b := c.newBatch()
		for _, rt := range req.Topics {
			ot := kmsg.NewAlterPartitionResponseTopic()
			ot.Topic, ot.TopidID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				p := tp{Topic: rt.Topic, Partition: rp.Partition}
				op := kmsg.NewAlterPartitionResponseTopicPartition()
				op.Partition = rp.Partition
				op.ErrorCode = c.alterPartition(b, req.BrokerID, p, rp).Code
				if ps := st.partState(p); ps != nil {
					op.LeaderID, op.LeaderEpoch = ps.leader, ps.leaderEpoch
					op.ISR = slices.Clone(ps.isr)
					op.PartitionEpoch = ps.zkVersion
				}
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		}
		b.send()
		return resp, nil
	})
}

var errNone = &kerr.Error{Message: "NONE", Code: 0}

func (c *Controller) alterPartition(b *batch, from int32, p tp, rp kmsg.AlterPartitionRequestTopicPartition) *kerr.Error {
	st := c.st
	ps := st.partState(p)
	switch {
	case ps == nil || !ps.exists || st.deleting[p.Topic] != nil:
		return kerr.UnknownTopicOrPartition
	case ps.leader != from:
		return kerr.NotLeaderForPartition
	case rp.LeaderEpoch < ps.leaderEpoch:
		return kerr.FencedLeaderEpoch
	case rp.LeaderEpoch > ps.leaderEpoch:
		return kerr.UnknownLeaderEpoch
	case rp.PartitionEpoch != ps.zkVersion && sameMembers(rp.NewISR, ps.isr):
		// A retry of a change already made (its answer was lost with
		// the connection): Kafka answers with the current state, so
		// the leader learns the partition epoch it missed instead of
		// being refused for ever.
		return errNone
	case rp.PartitionEpoch != ps.zkVersion:
		return kerr.InvalidUpdateVersion
	}
	if !slices.Contains(rp.NewISR, ps.leader) {
		return kerr.InvalidRequest
	}
	for _, r := range rp.NewISR {
		if !slices.Contains(st.replicas(p), r) || !st.eligible(r) && !slices.Contains(ps.isr, r) {
			return kerr.IneligibleReplica
		}
	}
	next := *ps
	next.isr = slices.Clone(rp.NewISR)
	next.controllerEpoch = st.epoch
	if !c.updateState(p, &next) {
		return kerr.InvalidUpdateVersion
	}
	c.log.Info("ISR changed", "partition", p.String(), "isr", next.isr, "partition_epoch", st.partState(p).zkVersion)
	b.updateMetadata(p)
	c.onReassignmentISRChange(b, p)
	return errNone
}

// ControlledShutdown moves a stopping broker's leaderships to other in-sync
// replicas and takes it out of the ISRs it follows in; the answer lists the
// partitions it still leads (Kafka retries until none remain).
//
// The answer waits (up to handOverWait) until every live broker has applied
// the hand-over: the new leaders lead, the old one follows, and every
// metadata cache names the new leaders. Only then does the stopping broker
// close its listeners, so a client it drops finds the new leaders at its
// first metadata refresh instead of a stale answer that sends it back, which
// costs it a whole refresh interval (franz-go: 5 s). This matters most when
// the stopping broker is the controller: its LeaderAndIsr to itself is in
// process and lands well before the others' over the network.
func (c *Controller) ControlledShutdown(ctx context.Context, req *kmsg.ControlledShutdownRequest) (*kmsg.ControlledShutdownResponse, error) {
	var applied <-chan struct{}
	resp, err := call(ctx, c, func() (*kmsg.ControlledShutdownResponse, error) {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		st := c.st
		if st == nil {
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil
		}
		info, ok := st.live[req.BrokerID]
		if !ok {
			resp.ErrorCode = kerr.BrokerNotAvailable.Code
			return resp, nil
		}
		if req.BrokerEpoch >= 0 && info.epoch != req.BrokerEpoch {
			resp.ErrorCode = kerr.StaleBrokerEpoch.Code
			return resp, nil
		}
		id := req.BrokerID
		st.shuttingDown[id] = true
		c.log.Info("controlled shutdown", "broker", id)
		b := c.newBatch()
		var moves, shrinks []change
		for _, p := range st.partitions() {
			ps := st.partState(p)
			if ps == nil || !ps.exists || len(st.replicas(p)) < 2 {
				continue
			}
			switch {
			case ps.leader == id:
				if leader, isr, ok := c.offlineLeaderExcluding(p, ps); ok {
					moves = append(moves, change{p, leader, isr})
				}
			case slices.Contains(ps.isr, id):
				var isr []int32
				for _, r := range ps.isr {
					if r != id {
						isr = append(isr, r)
					}
				}
				shrinks = append(shrinks, change{p, ps.leader, isr})
			}
		}
		c.changeStates(b, moves)
		for i, ok := range c.changeStates(b, shrinks) {
			if ok {
				b.stopReplica(id, shrinks[i].p, false, nil)
			}
		}
		applied = b.send()
		for _, p := range st.partitions() {
			if ps := st.partState(p); ps != nil && ps.leader == id && len(st.replicas(p)) > 1 {
				r := kmsg.NewControlledShutdownResponsePartitionsRemaining()
				r.Topic, r.Partition = p.Topic, p.Partition
				resp.PartitionsRemaining = append(resp.PartitionsRemaining, r)
			}
		}
		return resp, nil
	})
	if applied != nil {
		t := time.NewTimer(handOverWait)
		defer t.Stop()
		select {
		case <-applied:
		case <-t.C:
			c.log.Warn("controlled shutdown answered before every broker applied the hand-over", "broker", req.BrokerID, "waited", handOverWait)
		case <-ctx.Done():
		}
	}
	return resp, err
}

// handOverWait bounds how long a controlled shutdown answer waits for the
// brokers to apply the hand-over; a broker that died unnoticed (its session
// not yet expired) must not hold a clean shutdown up for long.
const handOverWait = 5 * time.Second

// offlineLeaderExcluding is the controlled-shutdown election: an in-sync
// replica other than the ones shutting down (never unclean).
func (c *Controller) offlineLeaderExcluding(p tp, ps *partState) (int32, []int32, bool) {
	st := c.st
	for _, r := range st.replicas(p) {
		if st.eligible(r) && slices.Contains(ps.isr, r) {
			var isr []int32
			for _, i := range ps.isr {
				if !st.shuttingDown[i] {
					isr = append(isr, i)
				}
			}
			return r, isr, true
		}
	}
	return -1, nil, false
}

// Election types of ElectLeaders.
const (
	ElectionPreferred = 0
	ElectionUnclean   = 1
)

// ElectLeaders runs preferred or unclean elections for the given partitions
// (all partitions when req.Topics is nil).
func (c *Controller) ElectLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error) {
	return call(ctx, c, func() (*kmsg.ElectLeadersResponse, error) {
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		st := c.st
		if st == nil {
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil
		}
		var parts []tp
		if req.Topics == nil {
			parts = st.partitions()
		} else {
			for _, t := range req.Topics {
				for _, p := range t.Partitions {
					parts = append(parts, tp{Topic: t.Topic, Partition: p})
				}
			}
		}
		b := c.newBatch()
		byTopic := map[string]int{}
		for _, p := range parts {
			code, msg := c.elect1(b, p, req.ElectionType)
			if req.Topics == nil && code == kerr.ElectionNotNeeded.Code {
				continue // an all-partitions election reports only real work
			}
			i := partid.TopicSlot(byTopic, p.Topic, func() {
				t := kmsg.NewElectLeadersResponseTopic()
				t.Topic = p.Topic
				resp.Topics = append(resp.Topics, t)
			})
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			if msg != "" {
				rp.ErrorMessage = kmsg.StringPtr(msg)
			}
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		b.send()
		return resp, nil
	})
}

func (c *Controller) elect1(b *batch, p tp, typ int8) (int16, string) {
	st := c.st
	ps := st.partState(p)
	if ps == nil || !ps.exists || st.deleting[p.Topic] != nil {
		return kerr.UnknownTopicOrPartition.Code, "No such topic or partition " + p.String()
	}
	switch typ {
	case ElectionPreferred:
		preferred := st.replicas(p)[0]
		if ps.leader == preferred {
			return kerr.ElectionNotNeeded.Code, ""
		}
		if !st.eligible(preferred) || !slices.Contains(ps.isr, preferred) {
			return kerr.PreferredLeaderNotAvailable.Code, "Failed to elect leader for partition " + p.String() + " under strategy PreferredReplicaPartitionLeaderElectionStrategy"
		}
		if !c.changeState(b, p, preferred, ps.isr) {
			return kerr.UnknownServerError.Code, "partition state write failed"
		}
		return 0, ""
	case ElectionUnclean:
		if ps.leader >= 0 && st.isLive(ps.leader) {
			return kerr.ElectionNotNeeded.Code, ""
		}
		for _, r := range st.replicas(p) {
			if st.eligible(r) {
				isr := []int32{r}
				if slices.Contains(ps.isr, r) {
					isr = nil
					for _, i := range ps.isr {
						if st.eligible(i) {
							isr = append(isr, i)
						}
					}
				}
				if !c.changeState(b, p, r, isr) {
					return kerr.UnknownServerError.Code, "partition state write failed"
				}
				return 0, ""
			}
		}
		return kerr.EligibleLeadersNotAvailable.Code, "Failed to elect leader for partition " + p.String() + " under strategy UncleanLeaderElectionStrategy"
	}
	return kerr.InvalidRequest.Code, "unknown election type"
}

// sameMembers reports whether a and b hold the same replicas, in any order.
func sameMembers(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}
