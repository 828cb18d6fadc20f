package replica

import (
	"context"
	"errors"
	"time"

	"kafgo/broker/partid"

	"github.com/twmb/franz-go/pkg/kerr"
)

// DeleteRecordsPartition asks to delete the records of TP below Offset
// (-1: below the high watermark).
type DeleteRecordsPartition struct {
	TP     partid.TopicPartition
	Offset int64
}

// DeleteRecordsResult is one partition's outcome: the low watermark (the
// lowest log start offset over the live replicas) when the request settled,
// -1 when it failed before that.
type DeleteRecordsResult struct {
	TP           partid.TopicPartition
	LowWatermark int64
	Err          error
}

// DeleteRecords advances each leader's log start offset, then waits, as
// Kafka's DelayedDeleteRecords does, until every live replica has followed
// (the low watermark reached the new start) or timeout passes: the
// partitions still behind then answer REQUEST_TIMED_OUT with the low
// watermark they had reached. Followers learn the new start from the
// leader's fetch answers and report theirs in their next fetch.
func (m *Manager) DeleteRecords(ctx context.Context, timeout time.Duration, parts []DeleteRecordsPartition) []DeleteRecordsResult {
	out := make([]DeleteRecordsResult, len(parts))
	tps := make([]partid.TopicPartition, len(parts))
	errs := make([]error, len(parts))
	targets := make([]int64, len(parts))
	for i, dp := range parts {
		tps[i] = dp.TP
		p, err := m.LeaderPartition(dp.TP)
		if err == nil {
			targets[i], err = p.deleteRecordsBefore(dp.Offset)
		}
		errs[i] = err
	}
	m.settle(ctx, timeout, tps, errs, evAll, func(i int, p *Partition) (bool, error) {
		low, err := p.lowWatermark()
		return err != nil || low >= targets[i], err
	})
	for i := range parts {
		out[i] = DeleteRecordsResult{TP: tps[i], LowWatermark: -1, Err: errs[i]}
		if errs[i] != nil && !errors.Is(errs[i], kerr.RequestTimedOut) {
			continue
		}
		if p, ok := m.Partition(tps[i]); ok {
			if low, err := p.lowWatermark(); err == nil {
				out[i].LowWatermark = low
			}
		}
	}
	return out
}
