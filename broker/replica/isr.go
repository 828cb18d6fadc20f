package replica

import (
	"context"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// shrinkISRs is the periodic isr-expiration task: every leader drops the
// followers that have not been caught up for replica.lag.time.max.ms.
func (m *Manager) shrinkISRs() {
	now := m.now()
	for _, p := range m.Partitions() {
		p.mu.RLock()
		if !p.isLeaderLocked() || p.pendingISR != nil {
			p.mu.RUnlock()
			continue
		}
		out := p.outOfSyncLocked(now, m.cfg.ReplicaLagTimeMax)
		var newISR []int32
		if len(out) > 0 {
			for _, r := range p.isr {
				if !slices.Contains(out, r) {
					newISR = append(newISR, r)
				}
			}
		}
		p.mu.RUnlock()
		if len(out) > 0 && m.proposeISR(p, newISR) {
			m.log.Info("shrinking ISR", "partition", p.tp.String(), "out_of_sync", out, "new_isr", newISR)
		}
	}
}

// expandISR proposes adding a caught-up follower.
func (m *Manager) expandISR(p *Partition, follower int32) {
	p.mu.RLock()
	if !p.isLeaderLocked() || p.pendingISR != nil || slices.Contains(p.isr, follower) {
		p.mu.RUnlock()
		return
	}
	newISR := append(slices.Clone(p.isr), follower)
	p.mu.RUnlock()
	// Logged only when proposed: a follower fetching while a proposal is
	// in flight or backing off gets here on every fetch.
	if m.proposeISR(p, newISR) {
		m.log.Info("expanding ISR", "partition", p.tp.String(), "follower", follower, "new_isr", newISR)
	}
}

// proposeISR sends an AlterPartition for newISR and applies the controller's
// answer; it reports whether it sent one. Only one proposal per partition is
// in flight; while it is, the HW respects the union of the old and new ISR.
func (m *Manager) proposeISR(p *Partition, newISR []int32) bool {
	p.mu.Lock()
	if !p.isLeaderLocked() || p.pendingISR != nil || m.now().Before(p.retryISRAfter) {
		p.mu.Unlock()
		return false
	}
	p.pendingISR = slices.Clone(newISR)
	leaderEpoch, partitionEpoch, topicID := p.leaderEpoch, p.partitionEpoch, p.topicID
	p.mu.Unlock()

	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version = 1
	req.BrokerID = m.brokerID
	req.BrokerEpoch = m.BrokerEpoch()
	rt := kmsg.NewAlterPartitionRequestTopic()
	rt.Topic = p.tp.Topic
	rt.TopicID = topicID
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition = p.tp.Partition
	rp.LeaderEpoch = leaderEpoch
	rp.NewISR = slices.Clone(newISR)
	rp.PartitionEpoch = partitionEpoch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.RequestTimeout)
		defer cancel()
		resp, err := m.cfg.Controller.AlterPartition(ctx, req)
		m.applyAlterPartition(p, leaderEpoch, resp, err)
	}()
	return true
}

func (m *Manager) applyAlterPartition(p *Partition, sentEpoch int32, resp *kmsg.AlterPartitionResponse, err error) {
	code := int16(0)
	var got *kmsg.AlterPartitionResponseTopicPartition
	if err == nil {
		code = resp.ErrorCode
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				if resp.Topics[i].Partitions[j].Partition == p.tp.Partition {
					got = &resp.Topics[i].Partitions[j]
				}
			}
		}
		if code == 0 && got == nil {
			code = kerr.UnknownTopicOrPartition.Code
		} else if code == 0 {
			code = got.ErrorCode
		}
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.pendingISR = nil
	if p.leaderEpoch != sentEpoch || !p.isLeaderLocked() {
		return // leadership moved on; the controller's LeaderAndIsr rules
	}
	if code == kerr.InvalidUpdateVersion.Code && got != nil && got.LeaderEpoch == p.leaderEpoch && got.PartitionEpoch > p.partitionEpoch {
		// Refused because this leader missed a change the controller
		// made (the answer to an earlier proposal was lost): the answer
		// carries the controller's state, which a LeaderAndIsr would
		// otherwise only bring if something else changes. Take it, then
		// propose again from it.
		m.log.Info("AlterPartition refused as stale; taking the controller's state", "partition", p.tp.String(),
			"isr", got.ISR, "partition_epoch", got.PartitionEpoch)
		m.cfg.Metrics.ISRUpdateFailed()
		p.applyControllerISRLocked(got)
		return
	}
	if err != nil || code != 0 {
		m.cfg.Metrics.ISRUpdateFailed()
		// Back off so a follower fetching in a tight loop does not turn an
		// unreachable controller into a request storm.
		p.retryISRAfter = m.now().Add(m.cfg.FetchBackoff)
		if err != nil {
			m.log.Warn("AlterPartition failed; will retry", "partition", p.tp.String(), "err", err)
		} else {
			m.log.Warn("AlterPartition refused; will retry", "partition", p.tp.String(), "error", kerr.ErrorForCode(code))
		}
		return
	}
	if got.LeaderEpoch != p.leaderEpoch {
		return
	}
	m.cfg.Metrics.ISRChanged(len(p.isr), len(got.ISR))
	p.applyControllerISRLocked(got)
}

// applyControllerISRLocked takes the ISR and partition epoch the controller
// answered with: followers new to the ISR start their lag period now, and
// the HW is recomputed over the new ISR.
func (p *Partition) applyControllerISRLocked(got *kmsg.AlterPartitionResponseTopicPartition) {
	p.isr = slices.Clone(got.ISR)
	p.partitionEpoch = got.PartitionEpoch
	now := time.Now()
	p.fmu.Lock()
	for _, r := range p.isr {
		if f, ok := p.followers[r]; ok && f.lastCaughtUpTime.IsZero() {
			f.lastCaughtUpTime = now
		}
	}
	p.fmu.Unlock()
	// A smaller ISR may let the HW advance and complete acks=all produces.
	p.maybeIncrementHWLocked()
	p.changed.notify(evAll)
}
