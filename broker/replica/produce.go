package replica

import (
	"context"
	"time"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
	"kafgo/broker/storage"
)

// ProducePartition is one partition's validated batches.
type ProducePartition struct {
	TP      partid.TopicPartition
	Batches []byte
	// Origin is who writes them: storage.OriginClient (the zero value) for
	// Produce, storage.OriginCoordinator for a broker coordinator's own
	// records (no sequence checks, see storage.AppendOrigin).
	Origin storage.AppendOrigin
}

// ProduceResult is one partition's outcome.
type ProduceResult struct {
	TP             partid.TopicPartition
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
		info, err := p.appendAsLeader(pp.Batches, acks, pp.Origin)
		out[i].Info, out[i].Err = info, err
		out[i].LogStartOffset = p.log.LogStartOffset()
		if err != nil {
			p.stats.ProduceFailed(errCode(err), len(pp.Batches))
		} else {
			p.stats.Appended(info.NumRecords, len(pp.Batches))
		}
	}
	return out
}

// errCode is err's Kafka error code, 0 for nil.
func errCode(err error) int16 {
	if err == nil {
		return 0
	}
	return kafkaerr.Code(err).Code
}

// WaitForAcks waits until every successful append in results is replicated
// to the whole ISR (the HW passed its last offset), or timeout passes
// (REQUEST_TIMED_OUT). It updates results in place.
func (m *Manager) WaitForAcks(ctx context.Context, timeout time.Duration, results []ProduceResult) {
	tps, errs := ackTargets(results)
	// Only an HW move (or a leadership or ISR change) can complete one.
	m.settle(ctx, timeout, tps, errs, evHW, ackCheck(results))
	for i := range results {
		results[i].Err = errs[i]
	}
}

// AcksDone settles results as WaitForAcks would if every successful append
// in them is already replicated to the whole ISR (or already failed), and
// reports whether it did; otherwise results are left as they were, for
// WaitForAcks. It never waits: a leader alone in its ISR answers acks=all
// at once.
func (m *Manager) AcksDone(results []ProduceResult) bool {
	tps, errs := ackTargets(results)
	settled := make([]bool, len(results))
	for i := range errs {
		settled[i] = errs[i] != nil
	}
	if m.settleOnce(tps, errs, settled, ackCheck(results)) {
		return false
	}
	for i := range results {
		results[i].Err = errs[i]
	}
	return true
}

func ackTargets(results []ProduceResult) ([]partid.TopicPartition, []error) {
	tps := make([]partid.TopicPartition, len(results))
	errs := make([]error, len(results))
	for i, r := range results {
		tps[i], errs[i] = r.TP, r.Err
	}
	return tps, errs
}

// ackCheck is the acks=all condition of each append: the HW passed it.
func ackCheck(results []ProduceResult) func(i int, p *Partition) (bool, error) {
	return func(i int, p *Partition) (bool, error) {
		return p.ackState(results[i].Info.LastOffset + 1)
	}
}
