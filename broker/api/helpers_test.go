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

// newReplicaServer is a Server over a real replica manager (broker 1) on a
// temporary log dir, without controller or groups.
func newReplicaServer(t *testing.T) (*Server, *replica.Manager, *clusterview.Cache) {
	t.Helper()
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
	return New(&Deps{BrokerID: 1, Cache: cache, Replicas: reps, Logger: logger}), reps, cache
}

// makeLeader applies a LeaderAndIsr for topic's partitions 0..n-1 led by
// leader at epoch with the given ISR and replicas.
func makeLeader(t *testing.T, reps *replica.Manager, topic string, n int32, leader, epoch int32, isr, replicas []int32) {
	t.Helper()
	lai := kmsg.NewPtrLeaderAndISRRequest()
	lai.Version, lai.ControllerID, lai.ControllerEpoch, lai.BrokerEpoch = 5, 1, 1, -1
	ts := kmsg.NewLeaderAndISRRequestTopicState()
	ts.Topic = topic
	for p := range n {
		ps := kmsg.NewLeaderAndISRRequestTopicPartition()
		ps.Partition, ps.Leader, ps.LeaderEpoch, ps.ISR, ps.Replicas, ps.ZKVersion = p, leader, epoch, isr, replicas, epoch
		ts.PartitionStates = append(ts.PartitionStates, ps)
	}
	lai.TopicStates = append(lai.TopicStates, ts)
	for _, p := range reps.HandleLeaderAndISR(lai).Topics[0].Partitions {
		if p.ErrorCode != 0 {
			t.Fatalf("LeaderAndIsr %s[%d]: %v", topic, p.Partition, kerr.ErrorForCode(p.ErrorCode))
		}
	}
}
