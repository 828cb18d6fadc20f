package replica

import (
	"context"
	"time"

	"kafgo/broker/partid"

	"github.com/twmb/franz-go/pkg/kerr"
)

// settle is Kafka's delayed-operation purgatory for one request: it waits
// until check settles every partition i whose errs[i] is nil, or until
// timeout, when the unsettled ones get REQUEST_TIMED_OUT. It re-checks on
// every change of the partitions' offsets (LEO, HW, log start offsets,
// followers' fetch state) and of the metadata. A partition no longer on this broker settles
// with NOT_LEADER_OR_FOLLOWER. check runs without Manager locks held.
//
// The deadline is wall-clock time, not the manager's clock: it is waited
// for with a timer.
func (m *Manager) settle(ctx context.Context, timeout time.Duration, tps []partid.TopicPartition, errs []error, check func(i int, p *Partition) (bool, error)) {
	deadline := time.Now().Add(timeout)
	wake := make(chan struct{}, 1)
	settled := make([]bool, len(tps))
	var watched []*Partition
	defer func() {
		for _, p := range watched {
			p.changed.remove(wake)
		}
	}()
	for i, tp := range tps {
		if errs[i] != nil {
			settled[i] = true
			continue
		}
		if p, ok := m.Partition(tp); ok {
			p.changed.add(wake)
			watched = append(watched, p)
		}
	}
	for {
		// Taken before the checks, so an update between them and the
		// wait still wakes us: a broker leaving the metadata can settle a
		// DeleteRecords (its replicas stop counting).
		metaChanged := m.cfg.Cache.Changed()
		pending := false
		for i, tp := range tps {
			if settled[i] {
				continue
			}
			p, ok := m.Partition(tp)
			if !ok {
				errs[i], settled[i] = kerr.NotLeaderForPartition, true
				continue
			}
			if done, err := check(i, p); done {
				errs[i], settled[i] = err, true
				continue
			}
			pending = true
		}
		if !pending {
			return
		}
		remaining := time.Until(deadline)
		expired := remaining <= 0
		if !expired {
			t := time.NewTimer(remaining)
			select {
			case <-wake:
			case <-metaChanged:
			case <-t.C:
			case <-ctx.Done():
				expired = true
			}
			t.Stop()
		}
		if expired {
			for i := range tps {
				if !settled[i] {
					errs[i] = kerr.RequestTimedOut
				}
			}
			return
		}
	}
}
