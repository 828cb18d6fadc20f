package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/partid"
)

// LeaderEndOffsets answers from the local HW where this broker leads, asks
// each other leader once for all its partitions, and leaves out partitions
// whose leader is unknown, is this broker (not leading any more) or fails.
func TestLeaderEndOffsets(t *testing.T) {
	cache := clusterview.New()
	cache.Apply(clusterview.Update{Partitions: []clusterview.Partition{
		{Topic: "t", Partition: 0, Leader: 1}, // here
		{Topic: "t", Partition: 1, Leader: 2},
		{Topic: "t", Partition: 2, Leader: 2},
		{Topic: "u", Partition: 0, Leader: 3}, // 3 fails
		{Topic: "u", Partition: 1, Leader: -1},
		{Topic: "u", Partition: 2, Leader: 1}, // named here, not led here
	}})
	local := func(tp partid.TopicPartition) (int64, bool) {
		if tp == (partid.TopicPartition{Topic: "t", Partition: 0}) {
			return 10, true
		}
		return 0, false
	}
	var mu sync.Mutex
	asked := map[int32]int{}
	send := func(_ context.Context, broker int32, req kmsg.Request) (kmsg.Response, error) {
		mu.Lock()
		asked[broker]++
		mu.Unlock()
		if broker == 3 {
			return nil, errors.New("unreachable")
		}
		resp := kmsg.NewPtrListOffsetsResponse()
		for _, rt := range req.(*kmsg.ListOffsetsRequest).Topics {
			t := kmsg.NewListOffsetsResponseTopic()
			t.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				p := kmsg.NewListOffsetsResponseTopicPartition()
				p.Partition, p.Offset = rp.Partition, 100+int64(rp.Partition)
				t.Partitions = append(t.Partitions, p)
			}
			resp.Topics = append(resp.Topics, t)
		}
		return resp, nil
	}
	ends := LeaderEndOffsets(1, cache, local, send, slog.New(slog.NewTextHandler(io.Discard, nil)))
	got := ends(context.Background(), []partid.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "t", Partition: 2},
		{Topic: "u", Partition: 0}, {Topic: "u", Partition: 1}, {Topic: "u", Partition: 2}, {Topic: "v", Partition: 0}})
	want := map[partid.TopicPartition]int64{{Topic: "t", Partition: 0}: 10, {Topic: "t", Partition: 1}: 101, {Topic: "t", Partition: 2}: 102}
	if !maps.Equal(got, want) {
		t.Fatalf("end offsets %v, want %v", got, want)
	}
	if asked[2] != 1 || asked[3] != 1 || len(asked) != 2 {
		t.Fatalf("requests per leader %v, want one each to 2 and 3", asked)
	}
}
