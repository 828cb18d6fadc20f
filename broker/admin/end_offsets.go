package admin

import (
	"context"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/partid"
)

// LeaderEndOffsets is a Source.EndOffsets for consumer group lag: the high
// watermark of each partition this broker leads (localHW), and for the
// others one ListOffsets (latest, read uncommitted: the HW) to each leader
// the metadata cache names, in parallel, over send (the broker's
// inter-broker client, which resolves the leader's address). Partitions
// whose leader is unknown or does not answer before ctx ends are left out.
func LeaderEndOffsets(self int32, cache *clusterview.Cache, localHW func(partid.TopicPartition) (int64, bool),
	send func(ctx context.Context, broker int32, req kmsg.Request) (kmsg.Response, error), log *slog.Logger,
) func(ctx context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64 {
	return func(ctx context.Context, tps []partid.TopicPartition) map[partid.TopicPartition]int64 {
		out := make(map[partid.TopicPartition]int64, len(tps))
		view := cache.View()
		byLeader := map[int32][]partid.TopicPartition{}
		for _, tp := range tps {
			if hw, ok := localHW(tp); ok {
				out[tp] = hw
				continue
			}
			if vp, ok := view.Partition(tp.Topic, tp.Partition); ok && vp.Leader >= 0 && vp.Leader != self {
				byLeader[vp.Leader] = append(byLeader[vp.Leader], tp)
			}
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for leader, parts := range byLeader {
			wg.Go(func() {
				resp, err := send(ctx, leader, latestOffsetsRequest(parts))
				if err != nil {
					log.Debug("metrics: end offsets for consumer lag unavailable", "leader", leader, "err", err)
					return
				}
				lo, ok := resp.(*kmsg.ListOffsetsResponse)
				if !ok {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, t := range lo.Topics {
					for _, p := range t.Partitions {
						if p.ErrorCode == 0 {
							out[partid.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
						}
					}
				}
			})
		}
		wg.Wait()
		return out
	}
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
