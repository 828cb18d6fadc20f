package api

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/internal/uuid"
)

// metadataServer is a Server whose cluster view holds topics × partitions
// partitions on three brokers.
func metadataServer(topics, partitions int) *Server {
	cache := clusterview.New()
	u := clusterview.Update{ControllerID: 1, ControllerEpoch: 1, TopicIDs: map[string]uuid.UUID{}}
	for id := int32(1); id <= 3; id++ {
		u.Brokers = append(u.Brokers, clusterview.Broker{ID: id, Endpoints: []clusterview.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 9090 + id}}})
	}
	for t := range topics {
		name := fmt.Sprintf("topic-%05d", t)
		u.TopicIDs[name] = [16]byte{byte(t), byte(t >> 8), 1}
		for p := range partitions {
			leader := int32(p%3 + 1)
			reps := []int32{leader, leader%3 + 1, (leader+1)%3 + 1}
			u.Partitions = append(u.Partitions, clusterview.Partition{Topic: name, Partition: int32(p), Leader: leader, LeaderEpoch: 3, ISR: reps, Replicas: reps})
		}
	}
	cache.Apply(u)
	return New(&Deps{BrokerID: 1, Cache: cache, InterBrokerListener: "PLAINTEXT", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// BenchmarkMetadataAllTopics answers an all-topics Metadata request (what
// every client asks on start and on each metadata refresh) for 30,000
// partitions and encodes the response.
func BenchmarkMetadataAllTopics(b *testing.B) {
	s := metadataServer(3000, 10)
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	req.Topics = nil
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		resp := s.handleMetadata(&Call{Req: req})().Resp
		buf = resp.AppendTo(buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "resp-bytes")
}
