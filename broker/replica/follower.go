package replica

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/record"
)

// truncate asks the leader where each partition's latest local epoch ends
// and cuts the local log there (KIP-101 with KIP-279's multi-round rule).
func (f *fetcher) truncate(client LeaderConn, states []fetchState) error {
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.Version = offsetForLeaderEpochVersion
	req.ReplicaID = f.m.brokerID
	byTopic := map[string]int{}
	asked := 0
	for _, st := range states {
		latest, ok := st.p.log.Epochs().LatestEpoch()
		if !ok {
			// No epoch history (an empty log): nothing can diverge.
			f.finishTruncation(st, -1)
			continue
		}
		i := partid.TopicSlot(byTopic, st.p.tp.Topic, func() {
			t := kmsg.NewOffsetForLeaderEpochRequestTopic()
			t.Topic = st.p.tp.Topic
			req.Topics = append(req.Topics, t)
		})
		rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
		rp.Partition = st.p.tp.Partition
		rp.CurrentLeaderEpoch = st.epoch
		rp.LeaderEpoch = latest
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
		asked++
	}
	if asked == 0 {
		return nil
	}
	kresp, err := f.request(client, req)
	if err != nil {
		return err
	}
	resp := kresp.(*kmsg.OffsetForLeaderEpochResponse)
	planned := map[partid.TopicPartition]fetchState{}
	for _, st := range states {
		planned[st.p.tp] = st
	}
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			tp := partid.TopicPartition{Topic: t.Topic, Partition: rp.Partition}
			st, ok := planned[tp]
			if !ok {
				continue
			}
			f.mu.Lock()
			if cur := f.currentLocked(st); cur != nil {
				if rp.ErrorCode != 0 {
					f.m.log.Info("OffsetForLeaderEpoch refused; retrying", "partition", tp.String(), "err", kerr.ErrorForCode(rp.ErrorCode))
					f.delayLocked(cur)
				} else if done, err := cur.p.truncateToLeaderEpoch(rp.LeaderEpoch, rp.EndOffset); err != nil {
					f.m.log.Error("truncation failed", "partition", tp.String(), "err", err)
					f.delayLocked(cur)
				} else if done {
					cur.truncating = false
				}
			}
			f.mu.Unlock()
		}
	}
	return nil
}

func (f *fetcher) finishTruncation(planned fetchState, _ int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cur := f.currentLocked(planned); cur != nil {
		cur.truncating = false
	}
}

// truncateToLeaderEpoch applies the leader's answer (epoch, end offset) for
// our latest epoch. It returns done=false when the leader's epoch is one we
// do not have: we cut to where our largest smaller epoch ends and ask again.
func (p *Partition) truncateToLeaderEpoch(leaderEpoch int32, leaderEnd int64) (done bool, err error) {
	leo := p.log.LogEndOffset()
	if leaderEnd < 0 {
		// The leader knows nothing of our epoch: fall back to the HW, as
		// Kafka does.
		return true, p.truncateTo(p.HighWatermark())
	}
	epoch, end := p.log.Epochs().EndOffsetFor(leaderEpoch, leo)
	switch {
	case epoch < 0:
		return true, p.truncateTo(min(leaderEnd, leo))
	case epoch != leaderEpoch:
		return false, p.truncateTo(min(end, leo))
	default:
		return true, p.truncateTo(min(end, leaderEnd, leo))
	}
}

// truncateTo cuts the local log at offset (a no-op for the data when
// already shorter) and keeps the HW within the log.
//
// The log is told even when offset is at or past its end: it then keeps
// every batch but drops epoch entries starting at its end, which a broker
// elected leader without appending anything leaves behind. Kept, they make
// every fetch name an epoch the new leader never wrote, the leader answers
// with a diverging epoch ending right here, and the follower never moves.
func (p *Partition) truncateTo(offset int64) error {
	if leo := p.log.LogEndOffset(); offset < leo {
		p.m.log.Info("truncating divergent or unreplicated log tail", "partition", p.tp.String(), "from", leo, "to", offset)
	}
	if err := p.log.TruncateTo(offset); err != nil {
		return err
	}
	if leo := p.log.LogEndOffset(); p.HighWatermark() > leo {
		p.setHighWatermark(leo)
	}
	return nil
}

// resolveOutOfRange handles OFFSET_OUT_OF_RANGE from the leader: a follower
// ahead of the leader (possible only after an unclean election) truncates to
// the leader's LEO; one behind the leader's log start restarts its log there.
func (f *fetcher) resolveOutOfRange(client LeaderConn, states []fetchState) error {
	for _, st := range states {
		start, err := f.listOffset(client, st, -2)
		if err != nil {
			return err
		}
		end, err := f.listOffset(client, st, -1)
		if err != nil {
			return err
		}
		f.mu.Lock()
		if cur := f.currentLocked(st); cur != nil {
			if err := cur.p.resetToLeaderRange(start, end); err != nil {
				f.m.log.Error("cannot reset follower log", "partition", st.p.tp.String(), "err", err)
				f.delayLocked(cur)
			} else {
				cur.outOfRange = false
			}
		}
		f.mu.Unlock()
	}
	return nil
}

func (p *Partition) resetToLeaderRange(leaderStart, leaderEnd int64) error {
	leo := p.log.LogEndOffset()
	switch {
	case leo > leaderEnd:
		return p.truncateTo(leaderEnd)
	case leo < leaderStart:
		if err := p.log.TruncateFullyAndStartAt(leaderStart); err != nil {
			return err
		}
		p.setHighWatermark(leaderStart)
	}
	return nil
}

func (f *fetcher) listOffset(client LeaderConn, st fetchState, ts int64) (int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.Version = listOffsetsVersion
	req.ReplicaID = f.m.brokerID
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = st.p.tp.Topic
	p := kmsg.NewListOffsetsRequestTopicPartition()
	p.Partition = st.p.tp.Partition
	p.CurrentLeaderEpoch = st.epoch
	p.Timestamp = ts
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	kresp, err := f.request(client, req)
	if err != nil {
		return 0, err
	}
	resp := kresp.(*kmsg.ListOffsetsResponse)
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				return 0, fmt.Errorf("replica: ListOffsets %s: %w", st.p.tp, kerr.ErrorForCode(rp.ErrorCode))
			}
			return rp.Offset, nil
		}
	}
	return 0, fmt.Errorf("replica: ListOffsets %s: empty answer", st.p.tp)
}

// fetch sends one Fetch for the given partitions, within the fetcher's
// fetch session, and applies the answer.
func (f *fetcher) fetch(client LeaderConn, states []fetchState) error {
	req := kmsg.NewPtrFetchRequest()
	req.Version = fetchVersion
	req.ReplicaID = f.m.brokerID
	req.MaxWaitMillis = int32(f.m.cfg.FetchWaitMax.Milliseconds())
	req.MinBytes = f.m.cfg.FetchMinBytes
	req.MaxBytes = f.m.cfg.FetchResponseMax
	want := make([]partid.TopicPartition, len(states))
	data := make(map[partid.TopicPartition]sessionPartition, len(states))
	planned := make(map[partid.TopicPartition]fetchState, len(states))
	for i, st := range states {
		sp := sessionPartition{fetchOffset: st.p.log.LogEndOffset(), logStartOffset: st.p.log.LogStartOffset(),
			maxBytes: f.m.cfg.FetchMaxBytes, leaderEpoch: st.epoch, lastFetchedEpoch: -1}
		if e, ok := st.p.log.Epochs().LatestEpoch(); ok {
			sp.lastFetchedEpoch = e
		}
		want[i], data[st.p.tp], planned[st.p.tp] = st.p.tp, sp, st
	}
	f.session.build(req, want, data)
	// The records are appended (copied) before the callback returns, so
	// the response's buffer can serve the next response.
	err := f.requestFunc(client, req, func(kresp kmsg.Response) error {
		resp := kresp.(*kmsg.FetchResponse)
		if !f.session.handle(resp) {
			f.m.log.Info("fetch session refused; the next fetch starts a new one", "leader", f.key.leader, "err", kerr.ErrorForCode(resp.ErrorCode))
			return nil
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for ti := range resp.Topics {
			t := &resp.Topics[ti]
			for pi := range t.Partitions {
				rp := &t.Partitions[pi]
				st, ok := planned[partid.TopicPartition{Topic: t.Topic, Partition: rp.Partition}]
				if !ok {
					continue
				}
				cur := f.currentLocked(st)
				if cur == nil {
					continue
				}
				f.applyFetchedLocked(cur, rp)
			}
		}
		return nil
	})
	if err != nil {
		f.session.reset(f.session.id)
	}
	return err
}

func (f *fetcher) applyFetchedLocked(st *fetchState, rp *kmsg.FetchResponseTopicPartition) {
	p := st.p
	switch rp.ErrorCode {
	case 0:
	case kerr.OffsetOutOfRange.Code:
		st.outOfRange = true
		return
	default:
		f.m.log.Debug("fetch partition error", "partition", p.tp.String(), "err", kerr.ErrorForCode(rp.ErrorCode))
		f.delayLocked(st)
		return
	}
	if rp.DivergingEpoch.EndOffset >= 0 && rp.DivergingEpoch.Epoch >= 0 {
		if _, err := p.truncateToLeaderEpoch(rp.DivergingEpoch.Epoch, rp.DivergingEpoch.EndOffset); err != nil {
			f.m.log.Error("truncation on diverging epoch failed", "partition", p.tp.String(), "err", err)
			f.delayLocked(st)
		}
		return
	}
	if batches := wholeBatchesFrom(rp.RecordBatches, p.log.LogEndOffset()); len(batches) > 0 {
		if _, err := p.log.AppendAsFollower(batches); err != nil {
			f.m.log.Error("follower append failed", "partition", p.tp.String(), "err", err)
			f.delayLocked(st)
			return
		}
		p.stats.ReplicationBytesIn.Add(uint64(len(batches)))
	}
	if n := len(rp.RecordBatches); n > 0 && p.cfg.Load().FollowerThrottled.Contains(p.tp.Partition) {
		// Kafka counts every fetched byte of a throttled replica, in sync
		// or not: the quota bounds the traffic, the ISR only who may wait.
		f.m.cfg.FollowerQuota.Record(int64(n))
	}
	leo := p.log.LogEndOffset()
	st.inSync = leo >= rp.HighWatermark
	p.setHighWatermark(min(rp.HighWatermark, leo))
	if rp.LogStartOffset > p.log.LogStartOffset() && rp.LogStartOffset <= leo {
		if err := p.log.SetLogStartOffset(rp.LogStartOffset); err != nil {
			f.m.log.Warn("cannot follow leader's log start offset", "partition", p.tp.String(), "err", err)
		}
	}
}

// wholeBatchesFrom trims fetched bytes to whole batches starting at our LEO:
// a leader may end a response with a partial batch, and a batch entirely
// below the LEO is one we already have.
func wholeBatchesFrom(b []byte, leo int64) []byte {
	start, end := -1, 0
	for pos := 0; pos+record.BatchHeaderSize <= len(b); {
		h, err := record.ParseBatchHeader(b[pos:])
		if err != nil || pos+h.Size() > len(b) {
			break
		}
		if h.NextOffset() <= leo {
			pos += h.Size()
			continue
		}
		if start < 0 {
			start = pos
		}
		pos += h.Size()
		end = pos
	}
	if start < 0 {
		return nil
	}
	return b[start:end]
}
