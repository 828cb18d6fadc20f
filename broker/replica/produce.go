package replica

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/storage"
)

// ProducePartition is one partition's validated batches.
type ProducePartition struct {
	TP      storage.TopicPartition
	Batches []byte
}

// ProduceResult is one partition's outcome.
type ProduceResult struct {
	TP             storage.TopicPartition
	Err            error
	Info           storage.AppendInfo
	LogStartOffset int64
}

// AppendToLeaders appends each partition's batches on this leader, in
// request order. It returns at once; with acks=all the caller then waits
// with WaitForAcks.
func (m *Manager) AppendToLeaders(acks int16, parts []ProducePartition) []ProduceResult {
	out := make([]ProduceResult, len(parts))
	for i, pp := range parts {
		out[i] = ProduceResult{TP: pp.TP, LogStartOffset: -1}
		p, err := m.LeaderPartition(pp.TP)
		if err != nil {
			out[i].Err = err
			continue
		}
		info, err := p.appendAsLeader(pp.Batches, acks)
		out[i].Info, out[i].Err = info, err
		out[i].LogStartOffset = p.log.LogStartOffset()
	}
	return out
}

// WaitForAcks waits until every successful append in results is replicated
// to the whole ISR (the HW passed its last offset), or timeout passes
// (REQUEST_TIMED_OUT). It updates results in place.
func (m *Manager) WaitForAcks(ctx context.Context, timeout time.Duration, results []ProduceResult) {
	deadline := m.now().Add(timeout)
	wake := make(chan struct{}, 1)
	settled := make([]bool, len(results))
	var watched []*Partition
	defer func() {
		for _, p := range watched {
			p.changed.remove(wake)
		}
	}()
	for i := range results {
		if results[i].Err != nil {
			settled[i] = true
			continue
		}
		if p, ok := m.Partition(results[i].TP); ok {
			p.changed.add(wake)
			watched = append(watched, p)
		}
	}
	for {
		pending := false
		for i := range results {
			if settled[i] {
				continue
			}
			r := &results[i]
			p, ok := m.Partition(r.TP)
			if !ok {
				r.Err, settled[i] = kerr.NotLeaderForPartition, true
				continue
			}
			if done, err := p.ackState(r.Info.LastOffset + 1); done {
				r.Err, settled[i] = err, true
				continue
			}
			pending = true
		}
		if !pending {
			return
		}
		remaining := deadline.Sub(m.now())
		expired := remaining <= 0
		if !expired {
			t := time.NewTimer(remaining)
			select {
			case <-wake:
			case <-t.C:
			case <-ctx.Done():
				expired = true
			}
			t.Stop()
		}
		if expired {
			for i := range results {
				if !settled[i] {
					results[i].Err = kerr.RequestTimedOut
				}
			}
			return
		}
	}
}
