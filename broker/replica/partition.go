package replica

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/quota"
	"kafgo/broker/storage"
)

// PartitionConfig is the topic configuration a partition needs at run time.
type PartitionConfig struct {
	Log               storage.LogConfig
	MinInsyncReplicas int32
	MaxMessageBytes   int32 // max.message.bytes: the largest batch accepted
	LogAppendTime     bool  // message.timestamp.type=LogAppendTime
	Compact           bool  // cleanup.policy includes compact: keyless records refused
	// The topic's partitions throttled on this broker (KIP-73), from
	// leader.replication.throttled.replicas (this broker serving followers)
	// and follower.replication.throttled.replicas (this broker fetching).
	LeaderThrottled   quota.Replicas
	FollowerThrottled quota.Replicas
}

// followerState is what the leader knows of one follower, from its fetches.
type followerState struct {
	leo                int64 // -1 until the first fetch of this leadership
	logStartOffset     int64
	lastFetchTime      time.Time
	lastFetchLeaderLEO int64
	lastCaughtUpTime   time.Time
}

// Partition is one partition replica on this broker.
type Partition struct {
	tp  partid.TopicPartition
	log *storage.Log
	m   *Manager

	// mu is the leadership lock: appends and reads of leadership hold it
	// shared, leadership and ISR changes hold it exclusively.
	mu              sync.RWMutex
	topicID         [16]byte
	replicas        []int32
	isr             []int32 // committed at the controller
	pendingISR      []int32 // proposed in an in-flight AlterPartition, nil if none
	retryISRAfter   time.Time
	leader          int32
	leaderEpoch     int32
	leaderEpochLEO  int64 // LEO when this broker became leader for leaderEpoch
	partitionEpoch  int32
	controllerEpoch int32
	followers       map[int32]*followerState // keys change under mu; values under fmu

	// fmu guards the fields of followers' states, which follower fetches
	// update while holding mu only shared.
	fmu sync.Mutex

	cfg atomic.Pointer[PartitionConfig]

	// changed fires on LEO, HW and leadership changes: delayed fetches and
	// acks=all produces wait on it.
	changed notifier

	// stats are the topic's BrokerTopicMetrics, held while the partition
	// is hosted here (released when it is deleted).
	stats *metrics.TopicStats
}

// TopicStats are the partition's topic's counters (BrokerTopicMetrics).
func (p *Partition) TopicStats() *metrics.TopicStats { return p.stats }

// TopicPartition names the partition.
func (p *Partition) TopicPartition() partid.TopicPartition { return p.tp }

// Log is the partition's local log.
func (p *Partition) Log() *storage.Log { return p.log }

// HighWatermark is the partition's HW as this replica knows it. The log
// holds the only copy, so retention, the cleaner and readers see one value.
func (p *Partition) HighWatermark() int64 { return p.log.HighWatermark() }

// LastStableOffset is the partition's LSO as this replica knows it: the HW,
// held back by the earliest transaction still open or whose marker is not
// yet below the HW. read_committed consumers read below it. It moves only
// when the HW does (markers complete a transaction only once replicated),
// so waiters woken by HW changes see it move.
func (p *Partition) LastStableOffset() int64 { return p.log.LastStableOffset(p.HighWatermark()) }

// Config returns the partition's current topic configuration.
func (p *Partition) Config() PartitionConfig { return *p.cfg.Load() }

// State is a consistent copy of a partition's replication state, for
// answering requests and the admin API.
type State struct {
	TopicPartition  partid.TopicPartition
	TopicID         [16]byte
	Leader          int32
	LeaderEpoch     int32
	PartitionEpoch  int32
	ControllerEpoch int32
	Replicas        []int32
	ISR             []int32
	IsLeader        bool
	HighWatermark   int64
	LogStartOffset  int64
	LogEndOffset    int64
	// ReplicaLEOs holds each replica's LEO as the leader sees it (the
	// leader's own included); only filled on the leader, -1 = not yet known.
	ReplicaLEOs map[int32]int64
	// LastCaughtUp holds when each follower was last caught up (leader only).
	LastCaughtUp map[int32]time.Time
}

// State returns the partition's replication state.
func (p *Partition) State() State {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := State{
		TopicPartition:  p.tp,
		TopicID:         p.topicID,
		Leader:          p.leader,
		LeaderEpoch:     p.leaderEpoch,
		PartitionEpoch:  p.partitionEpoch,
		ControllerEpoch: p.controllerEpoch,
		Replicas:        slices.Clone(p.replicas),
		ISR:             slices.Clone(p.isr),
		IsLeader:        p.isLeaderLocked(),
		HighWatermark:   p.HighWatermark(),
		LogStartOffset:  p.log.LogStartOffset(),
		LogEndOffset:    p.log.LogEndOffset(),
	}
	if s.IsLeader {
		s.ReplicaLEOs = map[int32]int64{p.m.brokerID: s.LogEndOffset}
		s.LastCaughtUp = map[int32]time.Time{}
		p.fmu.Lock()
		for id, f := range p.followers {
			s.ReplicaLEOs[id] = f.leo
			s.LastCaughtUp[id] = f.lastCaughtUpTime
		}
		p.fmu.Unlock()
	}
	return s
}

func (p *Partition) isLeaderLocked() bool { return p.leader == p.m.brokerID }

// IsLeader reports whether this broker leads the partition.
func (p *Partition) IsLeader() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.isLeaderLocked()
}

// Leader is the partition's leader and leader epoch as this replica last
// learned them (from LeaderAndIsr): after a hand-over, fresher than the
// metadata cache until the controller's UpdateMetadata arrives.
func (p *Partition) Leader() (id, epoch int32) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.leader, p.leaderEpoch
}

// LeaderEpoch is the current leader epoch.
func (p *Partition) LeaderEpoch() int32 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.leaderEpoch
}

// maximalISRLocked is the ISR the HW must respect: the committed ISR plus
// any replica whose addition is in flight (KIP-497), so that a replica the
// controller is about to admit is never overtaken by the HW.
func (p *Partition) maximalISRLocked() []int32 {
	if p.pendingISR == nil {
		return p.isr
	}
	out := slices.Clone(p.isr)
	for _, r := range p.pendingISR {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// setHighWatermark sets a follower's HW (the leader's, bounded by its LEO;
// it may go down on truncation), waking waiters when it changes.
func (p *Partition) setHighWatermark(hw int64) {
	if p.log.SetHighWatermark(hw) {
		p.changed.notify(evHW)
	}
}

// maybeIncrementHWLocked recomputes the leader's HW as the minimum LEO over
// the maximal ISR. Caller holds p.mu (shared is enough: the HW is atomic and
// follower LEOs are guarded by fmu).
func (p *Partition) maybeIncrementHWLocked() bool {
	if !p.isLeaderLocked() {
		return false
	}
	newHW := p.log.LogEndOffset()
	p.fmu.Lock()
	for _, r := range p.maximalISRLocked() {
		if r == p.m.brokerID {
			continue
		}
		f, ok := p.followers[r]
		if !ok || f.leo < 0 {
			// An ISR member we have not heard from this leadership: the HW
			// cannot move past what it might lack.
			p.fmu.Unlock()
			return false
		}
		if f.leo < newHW {
			newHW = f.leo
		}
	}
	p.fmu.Unlock()
	// The log's HW is the only copy (retention and the cleaner read it):
	// a CAS-max there, so a slower advancer can never publish an older HW.
	if !p.log.AdvanceHighWatermark(newHW) {
		return false
	}
	p.changed.notify(evHW)
	return true
}
