package replica

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/storage"
)

// FetchPartition is one partition of a fetch.
type FetchPartition struct {
	TP                 partid.TopicPartition
	FetchOffset        int64
	LogStartOffset     int64 // the follower's, -1 from consumers
	MaxBytes           int32
	CurrentLeaderEpoch int32 // -1 = not given (no fencing)
	LastFetchedEpoch   int32 // -1 = not given (Fetch < v12)
}

// DebuggingConsumerID is Kafka's replica id for a consumer that may read any
// replica, leader or follower, up to that replica's high watermark
// (FetchRequest.DEBUGGING_CONSUMER_ID): what kafka-replica-verification
// fetches with, to compare the replicas of each partition.
const DebuggingConsumerID = -2

// FetchRequest is a decoded Fetch, from a consumer (ReplicaID < 0) or a
// follower (ReplicaID = its broker id).
type FetchRequest struct {
	ReplicaID  int32
	MaxWait    time.Duration
	MinBytes   int32
	MaxBytes   int32
	Partitions []FetchPartition
	// ReadCommitted is isolation_level 1 (Fetch v4+): a consumer reads up
	// to the LSO and learns the aborted transactions of what it read.
	// Followers ignore it.
	ReadCommitted bool
}

// FetchResult is one partition's answer.
type FetchResult struct {
	TP               partid.TopicPartition
	Err              error
	HighWatermark    int64
	LastStableOffset int64
	LogStartOffset   int64
	Regions          []storage.FileRegion
	Bytes            int64
	// AbortedTransactions are, for a read_committed read that returned
	// records, the aborted transactions overlapping them (possibly none);
	// nil otherwise, sent as a null array as Kafka does.
	AbortedTransactions []storage.AbortedTxn
	// Diverging is set when the follower's last fetched epoch ends earlier
	// on this leader: the follower must truncate to DivergingEndOffset.
	Diverging          bool
	DivergingEpoch     int32
	DivergingEndOffset int64

	// throttled marks a follower read of a leader-throttled partition: its
	// bytes count against the leader quota. heldBack marks one whose
	// records were left out because the quota was exceeded.
	throttled, heldBack bool
	// outsideISR marks a follower read from a replica outside the ISR.
	outsideISR bool
	// stats are the partition's topic counters, nil when it is not here.
	stats *metrics.TopicStats
}

// Fetch reads every partition and, while fewer than MinBytes are available
// and no partition failed, waits up to MaxWait for more (Kafka's delayed
// fetch). A follower's fetch also records its LEO, which can advance the HW.
// For a follower outside the ISR, a leader-throttled partition answers
// without records while the leader quota is exceeded (KIP-73); such a
// partition adds nothing towards MinBytes, so the fetch waits rather than
// spins. The bytes of leader-throttled partitions that do go out are
// recorded in the leader quota once, for the answer actually sent.
func (m *Manager) Fetch(ctx context.Context, req FetchRequest) []FetchResult {
	results := m.fetchWaiting(ctx, req)
	if req.ReplicaID >= 0 {
		m.recordLeaderThrottled(results)
	}
	for i := range results {
		if r := &results[i]; r.stats != nil {
			r.stats.Fetched(req.ReplicaID >= 0, errCode(r.Err), r.Bytes)
		}
	}
	return results
}

func (m *Manager) recordLeaderThrottled(results []FetchResult) {
	var sent int64
	for i := range results {
		r := &results[i]
		if !r.throttled {
			continue
		}
		if r.heldBack {
			m.cfg.LeaderQuota.HeldBack()
		}
		if r.Err == nil {
			sent += r.Bytes
		}
	}
	m.cfg.LeaderQuota.Record(sent)
}

// fetchWaiting is Kafka's delayed fetch: read; when fewer than MinBytes
// came back and no partition failed, wait (see delayedFetch) until enough
// has arrived or MaxWait passes, then read once more.
func (m *Manager) fetchWaiting(ctx context.Context, req FetchRequest) []FetchResult {
	results, total, failed := m.readAll(req)
	if failed || total >= int64(req.MinBytes) || req.MaxWait <= 0 {
		return results
	}
	if m.waitForFetch(ctx, req, results) {
		for i := range results {
			ReleaseRegions(results[i])
		}
		results, _, _ = m.readAll(req)
	}
	return results
}

// ReleaseRegions lets go of the file regions of a result that will not be
// sent (storage keeps their descriptors open until then); the network layer
// releases the ones it sends.
func ReleaseRegions(r FetchResult) {
	for _, reg := range r.Regions {
		reg.Release()
	}
}

// readAll reads each partition in request order. The response limit is
// shared: each partition gets at most what remains, and only the first
// partition with data may exceed it by one batch (KIP-74), so a consumer
// always makes progress.
func (m *Manager) readAll(req FetchRequest) (results []FetchResult, total int64, failed bool) {
	results = make([]FetchResult, len(req.Partitions))
	remaining := int64(req.MaxBytes)
	if remaining <= 0 {
		remaining = 1 << 62
	}
	now := m.now()
	for i, fp := range req.Partitions {
		limit := int64(fp.MaxBytes)
		if limit > remaining {
			limit = remaining
		}
		minOne := total == 0
		r := m.readPartition(req.ReplicaID, req.ReadCommitted, fp, int32(min(limit, 1<<31-1)), minOne, now)
		results[i] = r
		if r.Err != nil {
			failed = true
			continue
		}
		total += r.Bytes
		remaining -= r.Bytes
		if remaining < 0 {
			remaining = 0
		}
	}
	if m.afterRead != nil {
		m.afterRead()
	}
	return results, total, failed
}

func (m *Manager) readPartition(replicaID int32, readCommitted bool, fp FetchPartition, maxBytes int32, minOne bool, now time.Time) FetchResult {
	res := FetchResult{TP: fp.TP, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1}
	p, ok := m.Partition(fp.TP)
	if !ok {
		res.Err = m.notLeaderError(fp.TP)
		return res
	}
	res.stats = p.stats
	fromFollower := replicaID >= 0
	var expand bool
	func() {
		p.mu.RLock()
		defer p.mu.RUnlock()
		// Only the debugging consumer (replica id -2, kafka-replica-
		// verification's) may read a follower, up to the follower's HW.
		if !p.isLeaderLocked() && replicaID != DebuggingConsumerID {
			res.Err = kerr.NotLeaderForPartition
			return
		}
		if err := p.checkLeaderEpochLocked(fp.CurrentLeaderEpoch); err != nil {
			res.Err = err
			return
		}
		leo := p.log.LogEndOffset()
		res.LogStartOffset = p.log.LogStartOffset()
		if fromFollower && fp.LastFetchedEpoch >= 0 {
			epoch, end := p.log.Epochs().EndOffsetFor(fp.LastFetchedEpoch, leo)
			if epoch < fp.LastFetchedEpoch || end < fp.FetchOffset {
				res.Diverging, res.DivergingEpoch, res.DivergingEndOffset = true, epoch, end
				res.HighWatermark = p.HighWatermark()
				res.LastStableOffset = p.log.LastStableOffset(res.HighWatermark)
				return
			}
		}
		if fromFollower && fp.FetchOffset >= res.LogStartOffset && fp.FetchOffset <= leo {
			var err error
			expand, err = p.updateFollowerFetchStateLocked(replicaID, fp.FetchOffset, fp.LogStartOffset, now)
			if err != nil {
				res.Err = err
				return
			}
		}
		// The HW is read once, so the LSO and the read bound agree with
		// the HW returned.
		res.HighWatermark = p.HighWatermark()
		res.LastStableOffset = p.log.LastStableOffset(res.HighWatermark)
		var info storage.ReadInfo
		var err error
		switch {
		case fromFollower:
			info, err = p.log.Read(fp.FetchOffset, maxBytes, leo, minOne)
		case readCommitted:
			info, res.AbortedTransactions, err = p.log.ReadCommitted(fp.FetchOffset, maxBytes, res.LastStableOffset, minOne)
		default:
			info, err = p.log.Read(fp.FetchOffset, maxBytes, res.HighWatermark, minOne)
		}
		if err != nil {
			if errors.Is(err, storage.ErrOffsetOutOfRange) {
				res.Err = kerr.OffsetOutOfRange
			} else {
				res.Err = err
			}
			return
		}
		res.Regions, res.Bytes = info.Regions, info.Size
		if fromFollower && p.cfg.Load().LeaderThrottled.Contains(fp.TP.Partition) {
			// Read first, as Kafka does, so a bad offset still gets its
			// error; then leave the records out (error NONE, offsets as
			// usual) for a replica outside the ISR over the quota.
			res.throttled = true
			res.outsideISR = !slices.Contains(p.isr, replicaID)
			if res.outsideISR && m.cfg.LeaderQuota.IsExceeded() {
				ReleaseRegions(res)
				res.Regions, res.Bytes, res.heldBack = nil, 0, true
			}
		}
	}()
	if expand {
		m.expandISR(p, replicaID)
	}
	return res
}

// checkLeaderEpochLocked fences requests that carry a leader epoch (KIP-320):
// older than ours means the client missed a leader change, newer means we did.
func (p *Partition) checkLeaderEpochLocked(current int32) error {
	switch {
	case current < 0:
		return nil
	case current < p.leaderEpoch:
		return kerr.FencedLeaderEpoch
	case current > p.leaderEpoch:
		return kerr.UnknownLeaderEpoch
	}
	return nil
}
