package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"kafgo/rebalance"
)

// Rebalancer plans and runs a rebalance (kafgo rebalance, Cruise Control's
// goals); an optional interface of the Source.
type Rebalancer interface {
	// PlanRebalance reads the cluster and plans.
	PlanRebalance(ctx context.Context) (*rebalance.Plan, error)
	// StartRebalance carries a plan out in the background, in batches
	// under a replication throttle, and returns at once.
	StartRebalance(p *rebalance.Plan, o rebalance.ExecOptions) error
	// RebalanceProgress is the running (or last) execution's log so far,
	// whether it still runs, and how it ended.
	RebalanceProgress() (log []string, running bool, err error)
}

// rebalanceRun is the live source's one execution at a time.
type rebalanceRun struct {
	mu      sync.Mutex
	log     strings.Builder
	running bool
	err     error
}

func (r *rebalanceRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

// PlanRebalance plans over the cluster as it is (traffic is not measured
// here: kafgo rebalance --metrics-window does that).
func (l *Live) PlanRebalance(ctx context.Context) (*rebalance.Plan, error) {
	m, err := rebalance.Load(ctx, l.cl, rebalance.LoadOptions{}, io.Discard)
	if err != nil {
		return nil, err
	}
	return rebalance.Make(m, rebalance.Options{})
}

// StartRebalance runs rebalance.Execute in the background; it stops with
// the workbench (moves already started finish in the controller, and
// kafgo reassign-partitions --verify then removes the throttles).
func (l *Live) StartRebalance(p *rebalance.Plan, o rebalance.ExecOptions) error {
	l.rb.mu.Lock()
	if l.rb.running {
		l.rb.mu.Unlock()
		return errors.New("a rebalance is already running")
	}
	l.rb.running, l.rb.err = true, nil
	l.rb.log.Reset()
	l.rb.mu.Unlock()
	go func() {
		err := rebalance.Execute(context.Background(), l.cl, p, o, &l.rb)
		l.rb.mu.Lock()
		l.rb.running, l.rb.err = false, err
		l.rb.mu.Unlock()
	}()
	return nil
}

// RebalanceProgress reports the execution's log lines.
func (l *Live) RebalanceProgress() ([]string, bool, error) {
	l.rb.mu.Lock()
	defer l.rb.mu.Unlock()
	text := strings.TrimRight(l.rb.log.String(), "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	return lines, l.rb.running, l.rb.err
}

// rebalanceExec are the workbench's execution settings: kafgo rebalance's
// defaults.
var rebalanceExec = rebalance.ExecOptions{Concurrency: 5, Throttle: 100 << 20, BatchTimeout: 30 * time.Minute}
