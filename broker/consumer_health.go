package broker

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/internal/consumerhealth"
)

// consumerHealth is the coordinator's view of its groups' health: every
// consumer.health.sample.interval.ms it samples the groups it coordinates
// (committed offsets and commit times) and their partitions' high
// watermarks into a consumerhealth.Tracker; /metrics and
// /v1/consumer-health evaluate it. Only the coordinator of a group tracks
// it, so a scrape of every broker counts each group once; a group whose
// coordinator moves starts a new window on its new coordinator.
type consumerHealth struct {
	b       *Broker
	tracker *consumerhealth.Tracker

	mu sync.Mutex
	// times caches the timestamp of the first record at or after an
	// offset, which never changes (until retention deletes it).
	times map[recordAt]int64
}

type recordAt struct {
	tp     partid.TopicPartition
	offset int64
}

// maxCachedTimes bounds the cache; it is cleared when full.
const maxCachedTimes = 100000

func newConsumerHealth(b *Broker) *consumerHealth {
	return &consumerHealth{b: b, tracker: consumerhealth.NewTracker(consumerhealth.DefaultConfig()), times: map[recordAt]int64{}}
}

// run samples until ctx ends.
func (h *consumerHealth) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, every)
			h.sample(sctx)
			cancel()
		}
	}
}

// sample observes every committed partition of every group coordinated
// here, and forgets the rest.
func (h *consumerHealth) sample(ctx context.Context) {
	snaps := h.b.groups.Snapshot()
	var tps []partid.TopicPartition
	seen := map[partid.TopicPartition]bool{}
	for _, g := range snaps {
		for tp := range g.Offsets {
			if !seen[tp] {
				seen[tp] = true
				tps = append(tps, tp)
			}
		}
	}
	ends := h.b.endOffsets(ctx, tps)
	now := time.Now()
	keep := map[consumerhealth.Key]bool{}
	for _, g := range snaps {
		for tp, off := range g.Offsets {
			k := consumerhealth.Key{Group: g.ID, Topic: tp.Topic, Partition: tp.Partition}
			keep[k] = true
			end, ok := ends[tp]
			if !ok {
				end = -1
			}
			s := consumerhealth.Sample{Time: now, Committed: off, End: end}
			if ct := g.CommitTimes[tp]; ct > 0 {
				s.CommitTime = time.UnixMilli(ct)
			}
			h.tracker.Observe(k, s)
		}
	}
	h.tracker.Forget(func(k consumerhealth.Key) bool { return keep[k] })
}

// Groups evaluates the tracked groups now, looking up the timestamps of
// the next records to read first.
func (h *consumerHealth) Groups(ctx context.Context) []consumerhealth.GroupHealth {
	var need []recordAt
	for _, k := range h.tracker.Keys() {
		if s, ok := h.tracker.Last(k); ok && s.End > s.Committed {
			need = append(need, recordAt{partid.TopicPartition{Topic: k.Topic, Partition: k.Partition}, s.Committed})
		}
	}
	h.lookup(ctx, need)
	return h.tracker.Groups(time.Now(), func(topic string, partition int32, offset int64) (time.Time, bool) {
		h.mu.Lock()
		defer h.mu.Unlock()
		ts, ok := h.times[recordAt{partid.TopicPartition{Topic: topic, Partition: partition}, offset}]
		return time.UnixMilli(ts), ok
	})
}

// lookup learns the record timestamps not cached yet: from this broker's
// own replica where it holds one, else with one Fetch to each leader.
func (h *consumerHealth) lookup(ctx context.Context, need []recordAt) {
	h.mu.Lock()
	var missing []recordAt
	for _, r := range need {
		if _, ok := h.times[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(h.times)+len(missing) > maxCachedTimes {
		h.times = map[recordAt]int64{}
	}
	h.mu.Unlock()
	found := func(r recordAt, ts int64) {
		h.mu.Lock()
		h.times[r] = ts
		h.mu.Unlock()
	}
	view := h.b.cache.View()
	byLeader := map[int32][]recordAt{}
	for _, r := range missing {
		if p, ok := h.b.replicas.Partition(r.tp); ok {
			if data, err := p.Log().ReadBytes(r.offset, 64<<10, p.HighWatermark()); err == nil {
				if ts, ok := firstRecordTime(data, r.offset); ok {
					found(r, ts)
				}
			}
			continue
		}
		if vp, ok := view.Partition(r.tp.Topic, r.tp.Partition); ok && vp.Leader >= 0 {
			byLeader[vp.Leader] = append(byLeader[vp.Leader], r)
		}
	}
	var wg sync.WaitGroup
	for leader, rs := range byLeader {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := h.b.ib.Send(ctx, leader, recordsAtRequest(rs))
			if err != nil {
				h.b.log.Debug("consumer health: record times unavailable", "leader", leader, "err", err)
				return
			}
			want := map[partid.TopicPartition]int64{}
			for _, r := range rs {
				want[r.tp] = r.offset
			}
			for _, t := range resp.(*kmsg.FetchResponse).Topics {
				for _, p := range t.Partitions {
					tp := partid.TopicPartition{Topic: t.Topic, Partition: p.Partition}
					if p.ErrorCode != 0 {
						continue
					}
					if ts, ok := firstRecordTime(p.RecordBatches, want[tp]); ok {
						found(recordAt{tp, want[tp]}, ts)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// recordsAtRequest is a consumer Fetch (v11, no session, no wait) of the
// first batch at each offset.
func recordsAtRequest(rs []recordAt) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.Version = 11
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 0
	req.MaxBytes = 1 << 20
	req.SessionEpoch = -1
	byTopic := map[string]int{}
	for _, r := range rs {
		i := partid.TopicSlot(byTopic, r.tp.Topic, func() {
			t := kmsg.NewFetchRequestTopic()
			t.Topic = r.tp.Topic
			req.Topics = append(req.Topics, t)
		})
		p := kmsg.NewFetchRequestTopicPartition()
		p.Partition, p.FetchOffset, p.PartitionMaxBytes = r.tp.Partition, r.offset, 1
		p.CurrentLeaderEpoch, p.LastFetchedEpoch, p.LogStartOffset = -1, -1, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	return req
}

// firstRecordTime is the timestamp of the first data record at or after
// offset in a run of record batches (control batches skipped).
func firstRecordTime(data []byte, offset int64) (int64, bool) {
	for len(data) >= record.LogOverhead {
		h, err := record.ParseBatchHeader(data)
		if err != nil || len(data) < h.Size() {
			return 0, false
		}
		b := data[:h.Size()]
		data = data[h.Size():]
		if h.LastOffset() < offset || h.IsControl() {
			continue
		}
		batch, err := record.ParseBatch(b, 16<<20)
		if err != nil {
			return 0, false
		}
		for i := range batch.Records {
			r := &batch.Records[i]
			if batch.OffsetOf(r) >= offset {
				return batch.TimestampOf(r), true
			}
		}
	}
	return 0, false
}
