package broker

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// endOffsets returns the high watermarks of tps for consumer group lag on
// /metrics: from this broker's own replica where it leads, otherwise asked
// of each partition's leader with one ListOffsets (latest, read
// uncommitted: the HW), in parallel. Partitions whose leader is unknown or
// does not answer before ctx ends are left out.
func (b *Broker) endOffsets(ctx context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64 {
	out := make(map[partid.TopicPartition]int64, len(tps))
	view := b.cache.View()
	self := b.Config().BrokerID
	byLeader := map[int32][]partid.TopicPartition{}
	for _, tp := range tps {
		if p, err := b.replicas.LeaderPartition(tp); err == nil {
			out[tp] = p.HighWatermark()
			continue
		}
		if vp, ok := view.Partition(tp.Topic, tp.Partition); ok && vp.Leader >= 0 && vp.Leader != self {
			byLeader[vp.Leader] = append(byLeader[vp.Leader], tp)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for leader, parts := range byLeader {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := b.ib.Send(ctx, leader, latestOffsetsRequest(parts))
			if err != nil {
				b.log.Debug("metrics: end offsets for consumer lag unavailable", "leader", leader, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, t := range resp.(*kmsg.ListOffsetsResponse).Topics {
				for _, p := range t.Partitions {
					if p.ErrorCode == 0 {
						out[partid.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
					}
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// latestOffsetsRequest is a ListOffsets v1 for the latest offset (the HW
// for a consumer) of each partition.
func latestOffsetsRequest(tps []partid.TopicPartition) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.Version = 1
	req.ReplicaID = -1
	byTopic := map[string]int{}
	for _, tp := range tps {
		i := partid.TopicSlot(byTopic, tp.Topic, func() {
			t := kmsg.NewListOffsetsRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
		})
		p := kmsg.NewListOffsetsRequestTopicPartition()
		p.Partition = tp.Partition
		p.Timestamp = -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	return req
}
