package e2e

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/coordlog"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// consumeGroup polls a group consumer until stop says so, returning every
// record value seen and the first offset seen per partition.
func consumeGroup(t *testing.T, cl *kgo.Client, stop func(seen map[int]bool) bool) (map[int]bool, map[int32]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seen := map[int]bool{}
	first := map[int32]int64{}
	for !stop(seen) {
		fs := cl.PollRecords(ctx, 100)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d records before the deadline", len(seen))
		}
		fs.EachError(func(topic string, p int32, err error) { t.Logf("fetch %s-%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			v, err := strconv.Atoi(string(r.Value))
			if err != nil {
				t.Fatalf("record value %q", r.Value)
			}
			if seen[v] {
				t.Fatalf("record %d delivered twice (partition %d offset %d)", v, r.Partition, r.Offset)
			}
			seen[v] = true
			if _, ok := first[r.Partition]; !ok {
				first[r.Partition] = r.Offset
			}
		})
	}
	return seen, first
}

// waitCommitted polls OffsetFetch until the coordinator answers (after a
// restart it is loading __consumer_offsets meanwhile).
func waitCommitted(t *testing.T, adm *kadm.Client, group, topic string, want map[int32]int64) {
	t.Helper()
	testwait.For(t, 60*time.Second, "committed offsets readable", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return false, err.Error()
		}
		got := map[int32]int64{}
		for _, ps := range res {
			for p, r := range ps {
				if r.Err != nil {
					return false, r.Err.Error()
				}
				if r.Topic == topic {
					got[p] = r.At
				}
			}
		}
		return maps.Equal(got, want), fmt.Sprintf("committed %v, want %v", got, want)
	})
}

// TestGroupCommitSurvivesKill: a member consumes part of a topic, commits
// and leaves; the broker is killed with -9 and restarted; the committed
// offsets are read back from __consumer_offsets, and a new member of the
// group resumes exactly there: nothing skipped, nothing repeated.
func TestGroupCommitSurvivesKill(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	adm := c.Admin()
	const topic, groupID, n, partitions = "resume", "g-resume", 3000, 3
	groupCreateTopic(t, c, topic, partitions, 1)
	groupProduce(t, c, topic, n)

	opts := []kgo.Opt{kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.FetchMaxWait(200 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)}
	cl1, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Addrs()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := consumeGroup(t, cl1, func(seen map[int]bool) bool { return len(seen) >= n/2 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl1.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	want := groupCommitted(t, adm, groupID, topic)
	total := int64(0)
	for _, o := range want {
		total += o
	}
	if total != int64(len(before)) {
		t.Fatalf("committed %v (sum %d) after consuming %d records", want, total, len(before))
	}
	cl1.Close() // LeaveGroup: the group is Empty, with its offsets

	b := c.Brokers()[0]
	b.Kill()
	b.Start()
	c.WaitForBrokers(time.Minute)
	waitCommitted(t, adm, groupID, topic, want)
	// The group came from the log: its partition loaded one group.
	loaded := fmt.Sprintf("partition=%d groups=1", coordlog.PartitionFor(groupID, 50))
	if log := b.LogTail(400); !strings.Contains(log, loaded) {
		t.Fatalf("the restarted broker did not report loading the group (%s):\n%s", loaded, log)
	}

	cl2 := c.Client(opts...)
	after, first := consumeGroup(t, cl2, func(seen map[int]bool) bool { return len(seen)+len(before) >= n })
	ends := groupEndOffsets(t, adm, topic)
	for p, o := range want {
		if f, ok := first[p]; o < ends[p] && (!ok || f != o) {
			t.Errorf("partition %d resumed at %d (consumed: %v), committed %d", p, f, ok, o)
		}
	}
	for v := range after {
		if before[v] {
			t.Errorf("record %d consumed again after the restart", v)
		}
	}
	for v := range n {
		if !before[v] && !after[v] {
			t.Errorf("record %d skipped", v)
		}
	}
}

// TestGroupMemberSurvivesCoordinatorKill: a member keeps running while
// its coordinator is killed with -9 and restarted. The group is loaded
// back as Stable with the member in it, so the member's commits of its
// generation are accepted again; it consumes the rest of the topic with
// nothing skipped.
func TestGroupMemberSurvivesCoordinatorKill(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	adm := c.Admin()
	const topic, group, n = "survive", "g-survive", 2000
	groupCreateTopic(t, c, topic, 2, 1)
	groupProduce(t, c, topic, n/2)
	cl := c.Client(kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.FetchMaxWait(200*time.Millisecond), kgo.SessionTimeout(10*time.Second),
		kgo.RetryTimeout(time.Minute))
	seen := map[int]bool{}
	poll := func(until int) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for len(seen) < until {
			fs := cl.PollRecords(ctx, 100)
			if ctx.Err() != nil {
				t.Fatalf("consumed %d of %d", len(seen), until)
			}
			fs.EachRecord(func(r *kgo.Record) {
				v, _ := strconv.Atoi(string(r.Value))
				seen[v] = true // redelivery after a restart is allowed
			})
		}
		// A member commit: accepted only with the member id and
		// generation the coordinator knows.
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	poll(n / 2)
	if got := groupCommitted(t, adm, group, topic); got[0]+got[1] != n/2 {
		t.Fatalf("committed %v", got)
	}
	_, gen := cl.GroupMetadata()
	b := c.Brokers()[0]
	b.Kill()
	b.Start()
	c.WaitForBrokers(time.Minute)
	testwait.For(t, 60*time.Second, "the group loaded back", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		dg, err := adm.DescribeGroups(ctx, group)
		if err != nil {
			return false, err.Error()
		}
		d := dg[group]
		return d.Err == nil && d.State == "Stable" && len(d.Members) == 1, fmt.Sprintf("%s %v %d members", d.State, d.Err, len(d.Members))
	})
	groupProduce(t, c, topic, n/2) // values 0..999 again: the set is the same
	for i := range n / 2 {
		delete(seen, i)
	}
	// The second batch reuses values 0..n/2-1; everything after the
	// commit must arrive.
	poll(n / 2)
	if got := groupCommitted(t, adm, group, topic); got[0]+got[1] != n {
		t.Fatalf("committed %v after the restart", got)
	}
	if _, now := cl.GroupMetadata(); now != gen {
		t.Logf("the member rejoined after the restart: generation %d -> %d", gen, now)
	}
}

// TestGroupCoordinatorFailover: three brokers, __consumer_offsets with
// three replicas. The group's coordinator goes away for good, killed with
// -9 or shut down cleanly (which moves its leaderships first and answers
// its waiting members); the new leader of its partition loads the group
// from its replica (every commit was acknowledged by all in-sync
// replicas), and the member carries on there: its committed offsets are
// intact and it consumes the rest.
func TestGroupCoordinatorFailover(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*testcluster.Broker)
	}{
		{"kill -9", (*testcluster.Broker).Kill},
		{"controlled shutdown", (*testcluster.Broker).Stop},
	} {
		t.Run(tc.name, func(t *testing.T) { coordinatorFailover(t, tc.stop) })
	}
}

func coordinatorFailover(t *testing.T, stop func(*testcluster.Broker)) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	adm := c.Admin()
	const topic, groupID, n = "failover", "g-failover", 2000
	groupCreateTopic(t, c, topic, 4, 3)
	groupProduce(t, c, topic, n)
	cl := c.Client(kgo.ConsumerGroup(groupID), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.FetchMaxWait(200*time.Millisecond), kgo.SessionTimeout(10*time.Second), kgo.RetryTimeout(time.Minute))
	before, _ := consumeGroup(t, cl, func(seen map[int]bool) bool { return len(seen) >= n/2 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	want := groupCommitted(t, adm, groupID, topic)
	fc := adm.FindGroupCoordinators(ctx, groupID)
	old := fc[groupID]
	if old.Err != nil {
		t.Fatal(old.Err)
	}
	stop(c.Broker(old.NodeID))
	testwait.For(t, 60*time.Second, "a new coordinator", func() (bool, string) {
		r := adm.FindGroupCoordinators(ctx, groupID)[groupID]
		return r.Err == nil && r.NodeID != old.NodeID, fmt.Sprintf("node %d err %v", r.NodeID, r.Err)
	})
	// A fresh admin client: franz-go caches the old coordinator for
	// sharded requests like OffsetFetch and keeps dialing it.
	adm = c.Admin()
	waitCommitted(t, adm, groupID, topic, want)
	after, _ := consumeGroup(t, cl, func(seen map[int]bool) bool {
		for v := range n {
			if !before[v] && !seen[v] {
				return false
			}
		}
		return true
	})
	// franz-go may still hold the dead broker in its metadata until its
	// ZooKeeper session expires, and a FindCoordinator sent there fails
	// the commit with a dial error; an application retries, and so do we,
	// bounded.
	testwait.For(t, 60*time.Second, "a commit to the new coordinator", func() (bool, string) {
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	ends := groupEndOffsets(t, adm, topic)
	if got := groupCommitted(t, adm, groupID, topic); !maps.Equal(got, ends) {
		t.Fatalf("committed %v, end offsets %v", got, ends)
	}
	t.Logf("coordinator %d gone; %d records before, %d after the failover", old.NodeID, len(before), len(after))
}
