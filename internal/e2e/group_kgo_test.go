package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestGroupKgoMembership: three kgo members of one group share a
// 12-partition topic, every partition owned by exactly one of them (as the
// clients see it and as the coordinator's DescribeGroups says). One leaves
// with LeaveGroup and the other two take its partitions; one then hangs
// without leaving (its connections freeze, so no heartbeat arrives) and the
// last takes everything, but only once its session timeout has passed.
// Eager and cooperative assignors alike.
func TestGroupKgoMembership(t *testing.T) {
	balancers := []struct {
		name string
		b    kgo.GroupBalancer
	}{
		{"range", kgo.RangeBalancer()},
		{"roundrobin", kgo.RoundRobinBalancer()},
		{"sticky", kgo.StickyBalancer()},
		{"cooperative-sticky", kgo.CooperativeStickyBalancer()},
	}
	c := testcluster.Start(t, testcluster.Options{})
	adm := c.Admin()
	const partitions = 12
	for _, bc := range balancers {
		t.Run(bc.name, func(t *testing.T) {
			topic, group := "members-"+bc.name, "g-"+bc.name
			groupCreateTopic(t, c, topic, partitions, 1)
			groupProduce(t, c, topic, 120)
			own := newGroupOwnership()
			var ms []*groupMember
			for _, name := range []string{"a", "b", "c"} {
				ms = append(ms, startGroupMember(t, c, name, group, topic, own, kgo.Balancers(bc.b)))
			}
			testwait.For(t, 60*time.Second, "three members sharing the partitions", func() (bool, string) {
				if ok, why := own.exact(partitions, "a", "b", "c"); !ok {
					return false, "clients: " + why
				}
				return groupBrokerAssignment(adm, group, topic, partitions, "a", "b", "c")
			})

			left := time.Now()
			ms[2].cl.LeaveGroup()
			testwait.For(t, 30*time.Second, "two members after a LeaveGroup", func() (bool, string) {
				if ok, why := own.exact(partitions, "a", "b"); !ok {
					return false, "clients: " + why
				}
				return groupBrokerAssignment(adm, group, topic, partitions, "a", "b")
			})
			t.Logf("%s: rebalance after LeaveGroup took %v", bc.name, time.Since(left).Round(time.Millisecond))

			ms[1].gate.set(true, false) // b hangs: no LeaveGroup, no heartbeats
			frozen := time.Now()
			testwait.For(t, 60*time.Second, "the last member owning everything", func() (bool, string) {
				if ok, why := own.exact(partitions, "a"); !ok {
					return false, "clients: " + why
				}
				return groupBrokerAssignment(adm, group, topic, partitions, "a")
			})
			took := time.Since(frozen)
			t.Logf("%s: takeover after a hung member took %v", bc.name, took.Round(time.Millisecond))
			// b's partitions can only move once its 6 s session ran out
			// (less the heartbeat interval it may have just used).
			if took < 5*time.Second {
				t.Fatalf("the hung member's partitions moved after %v, before its session timeout", took)
			}
		})
	}
}

// TestGroupKgoRebalanceTime measures, over several runs, how long a
// 3-member group takes from one member's LeaveGroup until the other two
// have their new assignment (eager range assignor). The survivors learn of
// the rebalance from their next heartbeat, so the heartbeat interval is
// most of it; at 100 ms what remains is the coordinator's JoinGroup and
// SyncGroup round, the assignment write included.
func TestGroupKgoRebalanceTime(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	const partitions, runs = 12, 5
	groupCreateTopic(t, c, "rebalance-time", partitions, 1)
	for _, hb := range []time.Duration{500 * time.Millisecond, 100 * time.Millisecond} {
		var times []time.Duration
		for run := range runs {
			own := newGroupOwnership()
			group := fmt.Sprintf("rt-%v-%d", hb, run)
			var ms []*groupMember
			for _, name := range []string{"a", "b", "c"} {
				ms = append(ms, startGroupMember(t, c, name, group, "rebalance-time", own,
					kgo.Balancers(kgo.RangeBalancer()), kgo.HeartbeatInterval(hb)))
			}
			testwait.For(t, 60*time.Second, "three members", func() (bool, string) { return own.exact(partitions, "a", "b", "c") })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			start := time.Now()
			if err := ms[2].cl.LeaveGroupContext(ctx); err != nil {
				t.Fatal(err)
			}
			cancel()
			for {
				if ok, _ := own.exact(partitions, "a", "b"); ok {
					break
				}
				select {
				case <-own.changed:
				case <-time.After(30 * time.Second):
					t.Fatal("no new assignment within 30s of the LeaveGroup")
				}
			}
			took := time.Since(start)
			times = append(times, took)
			if took > hb+2*time.Second {
				t.Errorf("heartbeat %v: rebalance took %v", hb, took)
			}
			for _, m := range ms[:2] {
				m.cl.Close()
			}
		}
		sorted := slices.Clone(times)
		slices.Sort(sorted)
		t.Logf("heartbeat %v: rebalance after LeaveGroup, %d runs: %v; median %v", hb, runs, times, sorted[len(sorted)/2].Round(time.Millisecond))
	}
}
