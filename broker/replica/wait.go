package replica

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
)

// await is the one wait of Kafka's delayed operations (delayed fetch,
// acks=all produce, DeleteRecords): it returns true once check reports
// done, false when timeout passes, ctx ends or the manager stops.
//
// The order is what makes it correct: it registers for wake-ups (on tps's
// partitions, for the events in interest, and on the metadata) first, then
// checks, then waits; every wake-up leads to a new check. A change landing
// between a check and the wait has already signalled the registered
// channel, so it is never slept through. When the timeout passes it checks
// once more before giving up. check runs without Manager locks held. The
// interest must cover every change that can make check true (evState is
// always included).
//
// The deadline is wall-clock time, not the manager's clock: it is waited
// for with a timer.
func (m *Manager) await(ctx context.Context, timeout time.Duration, tps []partid.TopicPartition, interest event, check func() bool) bool {
	wake := make(wakeChan, 1)
	for _, tp := range tps {
		if p, ok := m.Partition(tp); ok {
			p.changed.add(wake, interest|evState)
			defer p.changed.remove(wake)
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	expired := timeout <= 0
	for {
		// Taken before the check, for the same reason: a broker leaving
		// the metadata can settle a DeleteRecords (its replicas stop
		// counting), a partition appearing here can answer a fetch.
		metaChanged := m.cfg.Cache.Changed()
		if check() {
			return true
		}
		if expired {
			return false
		}
		if m.beforeWait != nil {
			m.beforeWait()
		}
		select {
		case <-wake:
		case <-metaChanged:
		case <-timer.C:
			expired = true
		case <-ctx.Done():
			return false
		case <-m.stop:
			return false
		}
	}
}

// settle waits, with await (for the events in interest), until check
// settles every partition i whose errs[i] is nil; the ones still unsettled
// at the end get REQUEST_TIMED_OUT. A partition no longer on this broker
// settles with NOT_LEADER_OR_FOLLOWER.
func (m *Manager) settle(ctx context.Context, timeout time.Duration, tps []partid.TopicPartition, errs []error, interest event, check func(i int, p *Partition) (bool, error)) {
	settled := make([]bool, len(tps))
	var watched []partid.TopicPartition
	for i, tp := range tps {
		if errs[i] != nil {
			settled[i] = true
			continue
		}
		watched = append(watched, tp)
	}
	m.await(ctx, timeout, watched, interest, func() bool { return !m.settleOnce(tps, errs, settled, check) })
	for i := range tps {
		if !settled[i] {
			errs[i] = kerr.RequestTimedOut
		}
	}
}

// settleOnce runs check once on every partition not yet settled, recording
// the outcome of those it settles, and reports whether any is still
// pending.
func (m *Manager) settleOnce(tps []partid.TopicPartition, errs []error, settled []bool, check func(i int, p *Partition) (bool, error)) (pending bool) {
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
	return pending
}
