package replica

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/storage"
	"kafgo/internal/uuid"
)

// appendAsLeader appends already validated batches. With acks=all it refuses
// up front when the ISR is below min.insync.replicas, writing nothing.
func (p *Partition) appendAsLeader(batches []byte, acks int16, origin storage.AppendOrigin) (storage.AppendInfo, error) {
	return p.leaderAppend(acks, func(leaderEpoch int32) (storage.AppendInfo, error) {
		return p.log.AppendAsLeaderFrom(batches, leaderEpoch, origin)
	})
}

// leaderAppend runs an append on the leader under the leadership lock, with
// the leader and min.insync.replicas checks of acks, then wakes waiters and
// advances the HW.
func (p *Partition) leaderAppend(acks int16, appendFn func(leaderEpoch int32) (storage.AppendInfo, error)) (storage.AppendInfo, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return storage.AppendInfo{}, kerr.NotLeaderForPartition
	}
	if acks == -1 && int32(len(p.isr)) < p.cfg.Load().MinInsyncReplicas {
		return storage.AppendInfo{}, kerr.NotEnoughReplicas
	}
	info, err := appendFn(p.leaderEpoch)
	if err != nil {
		return info, err
	}
	if !info.Duplicate {
		// The LEO moved: followers waiting in a fetch can take it now.
		p.changed.notify(evAppend)
	}
	p.maybeIncrementHWLocked()
	return info, nil
}

// ackState reports whether an acks=all append ending before requiredOffset is
// complete, and with which outcome, as Kafka's DelayedProduce decides it.
func (p *Partition) ackState(requiredOffset int64) (done bool, err error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return true, kerr.NotLeaderForPartition
	}
	if p.HighWatermark() < requiredOffset {
		return false, nil
	}
	if int32(len(p.isr)) < p.cfg.Load().MinInsyncReplicas {
		return true, kerr.NotEnoughReplicasAfterAppend
	}
	return true, nil
}

// updateFollowerFetchState records a follower's fetch at fetchOffset: its LEO
// and whether it is caught up (Kafka's Replica.updateFetchState rule: caught
// up now if it asked for the leader's LEO, or as of its previous fetch if it
// asked for at least what the leader had then). Returns whether the follower
// should be proposed for the ISR.
func (p *Partition) updateFollowerFetchStateLocked(id int32, fetchOffset, followerLogStart int64, now time.Time) (expand bool, err error) {
	f, ok := p.followers[id]
	if !ok {
		return false, kerr.ReplicaNotAvailable
	}
	leaderLEO := p.log.LogEndOffset()
	p.fmu.Lock()
	switch {
	case fetchOffset >= leaderLEO:
		f.lastCaughtUpTime = now
	case fetchOffset >= f.lastFetchLeaderLEO && !f.lastFetchTime.IsZero():
		if f.lastFetchTime.After(f.lastCaughtUpTime) {
			f.lastCaughtUpTime = f.lastFetchTime
		}
	}
	f.lastFetchLeaderLEO = leaderLEO
	f.lastFetchTime = now
	// A first fetch or a new log start offset can settle a waiting
	// DeleteRecords (the low watermark).
	startKnown := f.leo < 0 || f.logStartOffset != followerLogStart
	f.leo = fetchOffset
	f.logStartOffset = followerLogStart
	p.fmu.Unlock()
	if startKnown {
		p.changed.notify(evState)
	}

	p.maybeIncrementHWLocked()
	// Rejoin rule: the follower has everything up to the HW and everything
	// this leader has written in its epoch's start.
	expand = p.pendingISR == nil && !slices.Contains(p.isr, id) &&
		fetchOffset >= p.HighWatermark() && fetchOffset >= p.leaderEpochLEO
	return expand, nil
}

// outOfSyncLocked lists ISR followers that have not been caught up for
// lagMax: a stuck follower and a dead one both qualify; one that is level
// with the leader's LEO never does.
func (p *Partition) outOfSyncLocked(now time.Time, lagMax time.Duration) []int32 {
	leaderLEO := p.log.LogEndOffset()
	var out []int32
	p.fmu.Lock()
	defer p.fmu.Unlock()
	for _, r := range p.isr {
		if r == p.m.brokerID {
			continue
		}
		f, ok := p.followers[r]
		if !ok {
			continue
		}
		if f.leo != leaderLEO && now.Sub(f.lastCaughtUpTime) > lagMax {
			out = append(out, r)
		}
	}
	return out
}

// leaderState is the part of a LeaderAndIsr partition state a replica keeps.
type leaderState struct {
	topicID         uuid.UUID
	leader          int32
	leaderEpoch     int32
	partitionEpoch  int32
	controllerEpoch int32
	isr             []int32
	replicas        []int32
}

// makeLeader turns the replica into the leader of st.leaderEpoch. The new
// epoch starts at the current LEO; ISR followers get a full lag period of
// grace before they can be judged out of sync.
func (p *Partition) makeLeader(st leaderState, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	leo := p.log.LogEndOffset()
	if err := p.log.Epochs().Assign(st.leaderEpoch, leo); err != nil {
		return err
	}
	p.applyStateLocked(st)
	p.leaderEpochLEO = leo
	p.followers = make(map[int32]*followerState, len(st.replicas))
	for _, r := range st.replicas {
		if r == p.m.brokerID {
			continue
		}
		f := &followerState{leo: -1, lastFetchLeaderLEO: -1}
		if slices.Contains(st.isr, r) {
			f.lastCaughtUpTime = now
		}
		p.followers[r] = f
	}
	p.maybeIncrementHWLocked()
	p.changed.notify(evAll)
	return nil
}

// makeFollower records the new leader; the fetcher truncates and fetches.
func (p *Partition) makeFollower(st leaderState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.applyStateLocked(st)
	p.followers = nil
	p.changed.notify(evAll)
}

func (p *Partition) applyStateLocked(st leaderState) {
	if st.topicID != (uuid.Zero) {
		p.topicID = st.topicID
	}
	p.leader = st.leader
	p.leaderEpoch = st.leaderEpoch
	p.partitionEpoch = st.partitionEpoch
	p.controllerEpoch = st.controllerEpoch
	p.isr = slices.Clone(st.isr)
	p.replicas = slices.Clone(st.replicas)
	p.pendingISR = nil
}

// acceptsState reports whether a LeaderAndIsr state is newer than what the
// replica has: a higher leader epoch, or the same epoch with a newer
// partition epoch (an ISR or replica-set change by the controller).
func (p *Partition) acceptsState(st leaderState) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if st.leaderEpoch != p.leaderEpoch {
		return st.leaderEpoch > p.leaderEpoch
	}
	return st.partitionEpoch > p.partitionEpoch
}

// stopServing drops leadership without a new leader (StopReplica without
// delete, e.g. the partition moved away).
func (p *Partition) stopServing() {
	p.mu.Lock()
	p.leader = -1
	p.followers = nil
	p.pendingISR = nil
	p.mu.Unlock()
	p.changed.notify(evAll)
}
