package storage

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"kafgo/broker/partid"
)

// Start runs the background tasks until ctx ends or Shutdown: retention
// every RetentionCheckInterval, the flush.ms check every
// FlushSchedulerInterval, the recovery-point and log-start checkpoints
// every CheckpointInterval, and with CleanerEnable the log cleaner
// threads. Calling it again is a no-op.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	ctx, m.cancel = context.WithCancel(ctx)
	m.every(ctx, m.cfg.RetentionCheckInterval, m.retentionPass)
	m.every(ctx, m.cfg.FlushSchedulerInterval, m.flushPass)
	m.every(ctx, m.cfg.CheckpointInterval, func() {
		if err := m.writeCheckpoints(m.Logs()); err != nil {
			m.logger.Error("storage: write checkpoints", "err", err)
		}
	})
	if m.cfg.CleanerEnable {
		m.cleaner.start(ctx)
	}
}

func (m *Manager) every(ctx context.Context, period time.Duration, task func()) {
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				task()
			}
		}
	}()
}

func (m *Manager) retentionPass() {
	for tp, l := range m.Logs() {
		if n, err := l.DeleteRetainedSegments(); err != nil && !errors.Is(err, ErrClosed) {
			m.logger.Error("storage: retention", "partition", tp.String(), "err", err)
		} else if n > 0 {
			m.logger.Info("storage: retention deleted segments", "partition", tp.String(), "segments", n)
		}
	}
}

func (m *Manager) flushPass() {
	now := m.clock().UnixMilli()
	for tp, l := range m.Logs() {
		if err := l.flushIfDue(now); err != nil && !errors.Is(err, ErrClosed) {
			m.logger.Error("storage: flush", "partition", tp.String(), "err", err)
		}
	}
}

// writeCheckpoints writes recovery-point-offset-checkpoint and
// log-start-offset-checkpoint of every log dir from the given logs.
func (m *Manager) writeCheckpoints(logs map[partid.TopicPartition]*Log) error {
	rps := map[string]map[partid.TopicPartition]int64{}
	starts := map[string]map[partid.TopicPartition]int64{}
	for _, d := range m.dirs {
		rps[d], starts[d] = map[partid.TopicPartition]int64{}, map[partid.TopicPartition]int64{}
	}
	for tp, l := range logs {
		d := filepath.Dir(l.Dir())
		if rps[d] == nil {
			continue
		}
		rps[d][tp] = l.RecoveryPoint()
		starts[d][tp] = l.LogStartOffset()
	}
	m.cpMu.Lock()
	defer m.cpMu.Unlock()
	var errs []error
	for _, d := range m.dirs {
		if m.dirFailure(d) != nil {
			continue // an offline dir's checkpoints stay as they were
		}
		if err := writeOffsetCheckpoint(m.fs, filepath.Join(d, RecoveryPointCheckpointFile), rps[d]); err != nil {
			errs = append(errs, m.failDirOn(d, err))
			continue
		}
		if err := writeOffsetCheckpoint(m.fs, filepath.Join(d, LogStartOffsetCheckpointFile), starts[d]); err != nil {
			errs = append(errs, m.failDirOn(d, err))
		}
	}
	return errors.Join(errs...)
}

// WriteHighWatermarks writes replication-offset-checkpoint in every log dir
// with the high watermarks of the partitions that dir holds. Partitions this
// manager does not have are ignored.
func (m *Manager) WriteHighWatermarks(hw map[partid.TopicPartition]int64) error {
	byDir := map[string]map[partid.TopicPartition]int64{}
	for _, d := range m.dirs {
		byDir[d] = map[partid.TopicPartition]int64{}
	}
	m.mu.RLock()
	for tp, off := range hw {
		if l, ok := m.logs[tp]; ok {
			byDir[filepath.Dir(l.Dir())][tp] = off
		}
	}
	m.mu.RUnlock()
	m.cpMu.Lock()
	defer m.cpMu.Unlock()
	var errs []error
	for _, d := range m.dirs {
		if m.dirFailure(d) != nil {
			continue
		}
		if err := writeOffsetCheckpoint(m.fs, filepath.Join(d, ReplicationOffsetCheckpointFile), byDir[d]); err != nil {
			errs = append(errs, m.failDirOn(d, err))
		}
	}
	return errors.Join(errs...)
}

// ReadHighWatermarks reads replication-offset-checkpoint of every log dir.
func (m *Manager) ReadHighWatermarks() (map[partid.TopicPartition]int64, error) {
	out := map[partid.TopicPartition]int64{}
	for _, d := range m.dirs {
		hw, err := readOffsetCheckpoint(m.fs, filepath.Join(d, ReplicationOffsetCheckpointFile))
		if err != nil {
			return nil, err
		}
		for tp, off := range hw {
			out[tp] = off
		}
	}
	return out, nil
}
