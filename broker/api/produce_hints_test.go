package api

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
)

// TestProduceNotLeaderNamesNewLeader: a Produce v10 answer of
// NOT_LEADER_OR_FOLLOWER carries the current leader and its endpoint
// (KIP-951). Right after a hand-over the metadata cache still names this
// broker at the old epoch; the LeaderAndIsr that demoted it is fresher and
// wins. v9 answers carry no hint (the fields do not exist there).
func TestProduceNotLeaderNamesNewLeader(t *testing.T) {
	s, reps, cache := newReplicaServer(t)

	endpoints := func(port int32) []clusterview.Endpoint {
		return []clusterview.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: port}}
	}
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1,
		Brokers:    []clusterview.Broker{{ID: 1, Endpoints: endpoints(9001)}, {ID: 2, Endpoints: endpoints(9002)}},
		Partitions: []clusterview.Partition{{Topic: "t", Partition: 0, Leader: 1, LeaderEpoch: 4, ISR: []int32{1, 2}, Replicas: []int32{1, 2}}},
	})
	// The controller moved the leadership to broker 2 at epoch 5.
	makeLeader(t, reps, "t", 1, 2, 5, []int32{2}, []int32{1, 2})

	answer := func(version int16) *kmsg.ProduceResponse {
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = version
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic = "t"
		rp := kmsg.NewProduceResponseTopicPartition()
		rp.ErrorCode = kerr.NotLeaderForPartition.Code
		rt.Partitions = append(rt.Partitions, rp)
		resp.Topics = append(resp.Topics, rt)
		s.leaderHints(resp, "PLAINTEXT")
		return resp
	}
	resp := answer(10)
	if cl := resp.Topics[0].Partitions[0].CurrentLeader; cl.LeaderID != 2 || cl.LeaderEpoch != 5 {
		t.Fatalf("current leader %+v, want broker 2 at epoch 5", cl)
	}
	if len(resp.Brokers) != 1 || resp.Brokers[0].NodeID != 2 || resp.Brokers[0].Port != 9002 {
		t.Fatalf("node endpoints %+v, want broker 2 on port 9002", resp.Brokers)
	}
	resp = answer(9)
	if cl := resp.Topics[0].Partitions[0].CurrentLeader; cl.LeaderID != -1 || len(resp.Brokers) != 0 {
		t.Fatalf("v9 answer carries a hint: %+v %+v", cl, resp.Brokers)
	}
}
