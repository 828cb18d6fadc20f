package api

import (
	"io"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
)

// TestProduceNotLeaderNamesNewLeader: a Produce v10 answer of
// NOT_LEADER_OR_FOLLOWER carries the current leader and its endpoint
// (KIP-951). Right after a hand-over the metadata cache still names this
// broker at the old epoch; the LeaderAndIsr that demoted it is fresher and
// wins. v9 answers carry no hint (the fields do not exist there).
func TestProduceNotLeaderNamesNewLeader(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	logs, err := storage.OpenManager(storage.ManagerConfig{LogDirs: []string{t.TempDir()}, BrokerID: 1, DefaultLog: storage.DefaultLogConfig(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logs.Shutdown() })
	cache := clusterview.New()
	reps, err := replica.NewManager(replica.Config{BrokerID: 1, Logs: logs, Cache: cache, Logger: logger,
		ConfigFor: func(string) replica.PartitionConfig {
			return replica.PartitionConfig{Log: storage.DefaultLogConfig(), MinInsyncReplicas: 1}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reps.Shutdown() })
	s := New(&Deps{BrokerID: 1, Cache: cache, Replicas: reps, Logger: logger})

	endpoints := func(port int32) []clusterview.Endpoint {
		return []clusterview.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: port}}
	}
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1,
		Brokers:    []clusterview.Broker{{ID: 1, Endpoints: endpoints(9001)}, {ID: 2, Endpoints: endpoints(9002)}},
		Partitions: []clusterview.Partition{{Topic: "t", Partition: 0, Leader: 1, LeaderEpoch: 4, ISR: []int32{1, 2}, Replicas: []int32{1, 2}}},
	})
	// The controller moved the leadership to broker 2 at epoch 5.
	lai := kmsg.NewPtrLeaderAndISRRequest()
	lai.Version, lai.ControllerID, lai.ControllerEpoch, lai.BrokerEpoch = 5, 1, 1, -1
	ts := kmsg.NewLeaderAndISRRequestTopicState()
	ts.Topic = "t"
	ps := kmsg.NewLeaderAndISRRequestTopicPartition()
	ps.Partition, ps.Leader, ps.LeaderEpoch, ps.ISR, ps.Replicas, ps.ZKVersion = 0, 2, 5, []int32{2}, []int32{1, 2}, 5
	ts.PartitionStates = append(ts.PartitionStates, ps)
	lai.TopicStates = append(lai.TopicStates, ts)
	if code := reps.HandleLeaderAndISR(lai).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("LeaderAndIsr: %v", kerr.ErrorForCode(code))
	}

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
