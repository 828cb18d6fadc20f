package tui

import (
	"context"
	"fmt"
	"testing"

	"kafgo/internal/topicpart"
	"kafgo/rebalance"
)

// fakeRebalancer is a fake source that plans over a skewed model: every
// replica of topic "skew" on brokers 1 and 2, broker 3 empty.
type fakeRebalancer struct {
	*fakeSource
	started []string
	running bool
}

func (f *fakeRebalancer) PlanRebalance(context.Context) (*rebalance.Plan, error) {
	m := &rebalance.Model{MaxReplicasPerBroker: 10000, DiskCapacityThreshold: 0.8, BalanceThreshold: 1.1}
	for id := int32(1); id <= 3; id++ {
		m.Brokers = append(m.Brokers, &rebalance.Broker{ID: id, Rack: fmt.Sprintf("eu-1%c", 'a'+id-1)})
	}
	for i := 0; i < 6; i++ {
		r := []int32{1, 2}
		if i%2 == 1 {
			r = []int32{2, 1}
		}
		m.Partitions = append(m.Partitions, &rebalance.Partition{TP: topicpart.TP{Topic: "skew", Partition: int32(i)},
			Replicas: r, Leader: r[0], Size: int64(i+1) << 20})
	}
	return rebalance.Make(m, rebalance.Options{})
}

func (f *fakeRebalancer) StartRebalance(p *rebalance.Plan, o rebalance.ExecOptions) error {
	f.running = true
	f.started = []string{fmt.Sprintf("Batch 1/1: %d partition(s), %s", len(p.Changes), rebalance.HumanBytes(p.BytesToMove))}
	return nil
}

func (f *fakeRebalancer) RebalanceProgress() ([]string, bool, error) {
	return f.started, f.running, nil
}

// TestGoldenRebalance: B on the brokers view opens the imbalance and the
// plan; enter asks before it executes; y starts it and the page shows the
// execution's progress.
func TestGoldenRebalance(t *testing.T) {
	for _, sz := range sizes {
		f := &fakeRebalancer{fakeSource: newFake(fakeStep{snap: healthy()})}
		m := loadedWith(t, f.fakeSource, []*Snapshot{healthy()}, Options{View: ViewBrokers}, sz.w, sz.h)
		m.src = f
		m = press(t, m, "B")
		checkFrame(t, fmt.Sprintf("rebalance-plan-%dx%d", sz.w, sz.h), m.View(), sz.w, sz.h)
		m = press(t, m, "enter")
		checkFrame(t, fmt.Sprintf("rebalance-confirm-%dx%d", sz.w, sz.h), m.View(), sz.w, sz.h)
		m = press(t, m, "y")
		if !f.running {
			t.Fatal("the rebalance did not start")
		}
		checkFrame(t, fmt.Sprintf("rebalance-running-%dx%d", sz.w, sz.h), m.View(), sz.w, sz.h)
	}
}
