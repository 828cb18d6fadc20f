// Package memlog is an in-memory coordlog.Log for the coordinators' tests:
// batches per partition, offsets assigned on append, and knobs that fail or
// stall appends, replication waits and reads.
package memlog

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/coordlog"
	"kafgo/broker/record"
)

// Log is an internal topic's partitions in memory. Tests set the knobs
// under Mu.
type Log struct {
	Mu      sync.Mutex
	Batches map[int32][][]byte // per partition, with final offsets
	LEO     map[int32]int64
	// AppendErr fails appends; WaitErr fails replication waits; Hold, when
	// set, makes waits block until it is closed (or their context ends:
	// REQUEST_TIMED_OUT).
	AppendErr error
	WaitErr   error
	Hold      chan struct{}
	// ReadHold, when set, makes reads block until it is closed.
	ReadHold chan struct{}
}

var _ coordlog.Log = (*Log)(nil)

// New returns an empty log.
func New() *Log { return &Log{Batches: map[int32][][]byte{}, LEO: map[int32]int64{}} }

// Append implements coordlog.Log.
func (l *Log) Append(p int32, _ int16, batch []byte) (coordlog.AppendResult, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	if l.AppendErr != nil {
		return coordlog.AppendResult{}, l.AppendErr
	}
	h, err := record.ParseBatchHeader(batch)
	if err != nil {
		return coordlog.AppendResult{}, err
	}
	b := slices.Clone(batch)
	base := l.LEO[p]
	record.SetBaseOffset(b, base)
	l.Batches[p] = append(l.Batches[p], b)
	l.LEO[p] = base + int64(h.LastOffsetDelta) + 1
	waitErr, hold := l.WaitErr, l.Hold
	return coordlog.AppendResult{FirstOffset: base, Wait: func(ctx context.Context, _ time.Duration) error {
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return kerr.RequestTimedOut
			}
		}
		return waitErr
	}}, nil
}

// Read implements coordlog.Log.
func (l *Log) Read(p int32, offset int64, maxBytes int32, end int64) ([]byte, error) {
	l.Mu.Lock()
	hold := l.ReadHold
	l.Mu.Unlock()
	if hold != nil {
		<-hold
	}
	l.Mu.Lock()
	defer l.Mu.Unlock()
	var out []byte
	for _, b := range l.Batches[p] {
		h, _ := record.ParseBatchHeader(b)
		if h.NextOffset() <= offset || h.LastOffset() >= end {
			continue
		}
		if len(out) > 0 && len(out)+len(b) > int(maxBytes) {
			break
		}
		out = append(out, b...)
	}
	return out, nil
}

// Bounds implements coordlog.Log.
func (l *Log) Bounds(p int32) (int64, int64, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return 0, l.LEO[p], nil
}

// Clone copies the log, as a new leader's replica would have it.
func (l *Log) Clone() *Log {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	n := New()
	for p, bs := range l.Batches {
		for _, b := range bs {
			n.Batches[p] = append(n.Batches[p], slices.Clone(b))
		}
		n.LEO[p] = l.LEO[p]
	}
	return n
}

// Parsed returns partition p's batches decoded, in log order.
func (l *Log) Parsed(p int32) ([]record.Batch, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	var out []record.Batch
	for _, b := range l.Batches[p] {
		batch, err := record.ParseBatch(b, 1<<20)
		if err != nil {
			return nil, err
		}
		out = append(out, *batch)
	}
	return out, nil
}
