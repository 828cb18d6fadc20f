package controller

import (
	"context"
	"time"
)

// Stats are Kafka's KafkaController gauges, as this broker's controller
// sees the cluster. Kafka reports them only on the active controller: on
// the others every figure is zero.
type Stats struct {
	Active bool
	// OfflinePartitions have no live leader (topics being deleted aside).
	OfflinePartitions int
	// GlobalPartitions and GlobalTopics count every partition and topic.
	GlobalPartitions, GlobalTopics int
	// PreferredReplicaImbalance counts partitions led by another replica
	// than their first assigned one (topics being deleted aside).
	PreferredReplicaImbalance int
	// TopicsToDelete are topics queued for deletion, ReplicasToDelete
	// their replicas whose StopReplica is not acknowledged yet.
	TopicsToDelete, ReplicasToDelete int
}

// Stats computes the controller gauges on the event goroutine, so they see
// one consistent state; they cost nothing until asked for (a scrape). A
// controller busy past ctx's end answers with what it last computed.
func (c *Controller) Stats(ctx context.Context) Stats {
	if !c.IsActive() {
		return Stats{}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := call(ctx, c, func() (Stats, error) { return c.computeStats(), nil })
	if err != nil {
		if last := c.lastStats.Load(); last != nil {
			return *last
		}
		return Stats{Active: true}
	}
	c.lastStats.Store(&st)
	return st
}

func (c *Controller) computeStats() Stats {
	st := c.st
	if st == nil {
		return Stats{}
	}
	out := Stats{Active: true, GlobalTopics: len(st.topics), TopicsToDelete: len(st.deleting)}
	for _, pending := range st.deleting {
		out.ReplicasToDelete += len(pending)
	}
	for name, t := range st.topics {
		deleting := st.deleting[name] != nil
		for p, replicas := range t.assignment {
			out.GlobalPartitions++
			if deleting {
				continue
			}
			ps := t.states[p]
			if ps == nil || !ps.exists || ps.leader < 0 || !st.isLive(ps.leader) {
				out.OfflinePartitions++
			}
			if ps != nil && ps.exists && len(replicas) > 0 && ps.leader != replicas[0] {
				out.PreferredReplicaImbalance++
			}
		}
	}
	return out
}

// timeLeaderElection observes, on return, a leader election run that
// began at start (Kafka's LeaderElectionRateAndTimeMs times the handling
// of a broker change).
func (c *Controller) timeLeaderElection(start time.Time) {
	c.cfg.Metrics.ObserveLeaderElection(time.Since(start))
}
