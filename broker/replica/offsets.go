package replica

import (
	"github.com/twmb/franz-go/pkg/kerr"
)

// Special ListOffsets timestamps.
const (
	LatestTimestamp   = -1
	EarliestTimestamp = -2
	MaxTimestamp      = -3
)

// ListOffset answers ListOffsets for one partition on its leader. Consumers
// (fromReplica false) see offsets below the HW only, below the LSO with
// readCommitted (isolation level READ_COMMITTED, ListOffsets v2+); a
// replica (or debug client) sees up to the LEO, as Kafka answers them.
func (p *Partition) ListOffset(currentLeaderEpoch int32, timestamp int64, fromReplica, readCommitted bool) (offset, ts int64, leaderEpoch int32, err error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return -1, -1, -1, kerr.NotLeaderForPartition
	}
	if err := p.checkLeaderEpochLocked(currentLeaderEpoch); err != nil {
		return -1, -1, -1, err
	}
	bound := p.HighWatermark()
	switch {
	case fromReplica:
		bound = p.log.LogEndOffset()
	case readCommitted:
		bound = p.log.LastStableOffset(bound)
	}
	switch timestamp {
	case LatestTimestamp:
		return bound, -1, p.epochForOffsetLocked(bound), nil
	case EarliestTimestamp:
		start := p.log.LogStartOffset()
		return start, -1, p.epochForOffsetLocked(start), nil
	case MaxTimestamp:
		mts, moff, err := p.log.MaxTimestamp()
		if err != nil {
			return -1, -1, -1, err
		}
		if moff < 0 || moff >= bound {
			return -1, -1, -1, nil
		}
		return moff, mts, p.epochForOffsetLocked(moff), nil
	}
	off, fts, found, err := p.log.OffsetForTimestamp(timestamp)
	if err != nil {
		return -1, -1, -1, err
	}
	if !found || off >= bound {
		return -1, -1, -1, nil
	}
	return off, fts, p.epochForOffsetLocked(off), nil
}

func (p *Partition) epochForOffsetLocked(offset int64) int32 {
	e, ok := p.log.Epochs().EpochForOffset(offset)
	if !ok {
		return -1
	}
	return e
}

// OffsetForLeaderEpoch returns where epoch ends in this leader's log (the
// start of the next higher epoch, or the LEO for the current one), with the
// largest epoch at or below the requested one (KIP-101, KIP-279).
func (p *Partition) OffsetForLeaderEpoch(currentLeaderEpoch, epoch int32) (int32, int64, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return -1, -1, kerr.NotLeaderForPartition
	}
	if err := p.checkLeaderEpochLocked(currentLeaderEpoch); err != nil {
		return -1, -1, err
	}
	e, end := p.log.Epochs().EndOffsetFor(epoch, p.log.LogEndOffset())
	return e, end, nil
}

// deleteRecordsBefore advances the log start offset to offset (-1 = the
// HW) on the leader and returns it; followers follow through their fetches
// (DeleteRecords waits for that).
func (p *Partition) deleteRecordsBefore(offset int64) (int64, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return -1, kerr.NotLeaderForPartition
	}
	hw := p.HighWatermark()
	if offset == -1 {
		offset = hw
	}
	if offset < 0 || offset > hw {
		return -1, kerr.OffsetOutOfRange
	}
	if offset > p.log.LogStartOffset() {
		if err := p.log.SetLogStartOffset(offset); err != nil {
			return -1, err
		}
		p.changed.notify(evAll)
	}
	return p.log.LogStartOffset(), nil
}

// lowWatermark is, on the leader, the lowest log start offset over this
// replica and every follower on a live broker (Kafka's
// lowWatermarkIfLeader). A follower that has not fetched in this
// leadership counts as -1: its log start offset is not known yet.
func (p *Partition) lowWatermark() (int64, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if !p.isLeaderLocked() {
		return -1, kerr.NotLeaderForPartition
	}
	low := p.log.LogStartOffset()
	view := p.m.cfg.Cache.View()
	p.fmu.Lock()
	defer p.fmu.Unlock()
	for id, f := range p.followers {
		if _, alive := view.Broker(id); !alive {
			continue
		}
		start := f.logStartOffset
		if f.leo < 0 {
			start = -1
		}
		low = min(low, start)
	}
	return low, nil
}
