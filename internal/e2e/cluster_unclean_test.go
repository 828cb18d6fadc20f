package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestUncleanLeaderElectionSwitch: with every in-sync replica gone and
// only an out-of-sync one alive, a topic keeps no leader by default, gets
// the out-of-sync replica as leader when unclean.leader.election.enable is
// set, and the ElectLeaders UNCLEAN request forces the same.
func TestUncleanLeaderElectionSwitch(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	adm := kadm.NewClient(cl)
	on := "true"
	leaderOfTopic := func(name string) int32 {
		parts, err := testcluster.Partitions(ctx, cl, name)
		if err != nil {
			return -2
		}
		return parts[0].Leader
	}
	// Replicas on brokers 1 and 2, preferring 1; broker 3 holds none and
	// stays up as the controller.
	for name, cfg := range map[string]map[string]*string{"clean": nil, "unclean": {"unclean.leader.election.enable": &on}} {
		if err := createAssigned(ctx, cl, name, []int32{1, 2}, cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"clean", "unclean"} {
		testwait.For(t, 30*time.Second, name+" led by 1 with ISR [1 2]", func() (bool, string) {
			parts, err := testcluster.Partitions(ctx, cl, name)
			return err == nil && parts[0].Leader == 1 && len(parts[0].ISR) == 2, fmt.Sprint(parts, err)
		})
	}
	// Broker 2 dies: it leaves the ISRs; records written now exist on 1 only.
	c.Broker(2).Kill()
	for _, name := range []string{"clean", "unclean"} {
		testwait.For(t, 30*time.Second, name+" ISR shrinks to [1]", func() (bool, string) {
			parts, err := testcluster.Partitions(ctx, cl, name)
			return err == nil && len(parts[0].ISR) == 1 && parts[0].ISR[0] == 1, fmt.Sprint(parts, err)
		})
	}
	prod := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	for _, name := range []string{"clean", "unclean"} {
		produceN(t, ctx, prod, name, 0, 10)
	}
	// The last in-sync replica dies; the out-of-sync one returns.
	c.Broker(1).Kill()
	c.Broker(2).Start()
	testwait.For(t, 60*time.Second, "unclean topic elects the out-of-sync replica", func() (bool, string) {
		return leaderOfTopic("unclean") == 2, fmt.Sprint(leaderOfTopic("unclean"))
	})
	time.Sleep(2 * time.Second)
	if l := leaderOfTopic("clean"); l != -1 {
		t.Fatalf("clean topic got leader %d from outside its ISR", l)
	}
	res, err := adm.ElectLeaders(ctx, kadm.ElectLiveReplica, kadm.TopicsSet{"clean": {0: struct{}{}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ps := range res {
		for _, r := range ps {
			if r.Err != nil {
				t.Fatalf("unclean election: %v", r.Err)
			}
		}
	}
	testwait.For(t, 30*time.Second, "ElectLeaders UNCLEAN gives the clean topic a leader", func() (bool, string) {
		return leaderOfTopic("clean") == 2, fmt.Sprint(leaderOfTopic("clean"))
	})
}

// createAssigned creates a one-partition topic on the given replicas.
func createAssigned(ctx context.Context, cl *kgo.Client, name string, replicas []int32, cfg map[string]*string) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = name
	rt.NumPartitions, rt.ReplicationFactor = -1, -1
	ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	ra.Partition, ra.Replicas = 0, replicas
	rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
	for k, v := range cfg {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, v
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if code := resp.Topics[0].ErrorCode; code != 0 {
		return kerr.ErrorForCode(code)
	}
	return nil
}
