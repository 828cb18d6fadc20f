package storage

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"time"

	"kafgo/broker/partid"
	"kafgo/broker/record"
)

// CleanerOffsetCheckpointFile is the per-log-dir file recording, for each
// compacted partition, the offset below which its log is clean (Kafka's
// text checkpoint format: "0", the count, then "topic partition offset").
const CleanerOffsetCheckpointFile = "cleaner-offset-checkpoint"

// cleanerRetryDelay is how long a log whose pass failed (a corrupt batch,
// a full disk) is left alone before it is tried again.
var cleanerRetryDelay = time.Minute

// Cleaner compacts the logs of a Manager whose config has Compact set
// (Kafka's LogCleaner with its LogCleanerManager).
//
// Each of log.cleaner.threads threads repeatedly takes the dirtiest log no
// other thread holds and runs one pass on it (Log.clean), and sleeps
// log.cleaner.backoff.ms when no log qualifies. A log qualifies when
//   - its dirty ratio, bytes of closed segments above the cleaner
//     checkpoint (and below the first uncleanable offset) over the bytes of
//     all closed segments, is at least min.cleanable.dirty.ratio and some
//     dirty bytes exist;
//   - or its oldest dirty batch is older than max.compaction.lag.ms;
//   - or the earliest delete horizon of a tombstone it keeps has passed, so
//     a pass removes tombstones even when nothing new was written (Kafka
//     only finds these while cleaning new data).
//
// Only logs whose high watermark has been set (Log.SetHighWatermark) are
// considered: a pass never goes beyond it.
//
// Invariants: a log is cleaned by at most one thread at a time; the
// checkpoint only moves up to what a finished pass mapped, and falls back
// to the log start when the log was truncated since (its data below the
// checkpoint may have been replaced); cleaner-offset-checkpoint is written
// after each pass, so it survives restarts; a failed or abandoned pass
// leaves the log as it was.
type Cleaner struct {
	m          *Manager
	threads    int
	backoff    time.Duration
	mapBytes   int64 // per thread
	writeBuf   int   // per thread
	loadFactor float64

	mu    sync.Mutex
	state map[partid.TopicPartition]*cleanState
	busy  map[*Log]bool

	cpMu sync.Mutex // serialises checkpoint file writes
}

// cleanState is what the cleaner knows of one partition.
type cleanState struct {
	log          *Log  // nil until first seen (loaded from the checkpoint file)
	checkpoint   int64 // first dirty offset; -1 when never cleaned
	gen          uint64
	genKnown     bool  // gen is the log's truncation count when checkpoint was right
	horizon      int64 // earliest pending delete horizon, math.MaxInt64 none
	horizonKnown bool
	notBefore    int64 // ms (log clock): not selected before
}

// cleanerWorker is the memory one cleaner thread reuses across passes.
type cleanerWorker struct {
	om       *offsetMap
	writeBuf int
}

func newCleaner(m *Manager) *Cleaner {
	cfg := m.cfg
	c := &Cleaner{
		m: m, threads: max(cfg.CleanerThreads, 1), backoff: cfg.CleanerBackoff,
		loadFactor: cfg.CleanerDedupeLoadFactor,
		state:      map[partid.TopicPartition]*cleanState{}, busy: map[*Log]bool{},
	}
	if c.backoff <= 0 {
		c.backoff = 15 * time.Second
	}
	if !(c.loadFactor > 0 && c.loadFactor <= 1) {
		c.loadFactor = 0.9
	}
	dedupe, io := cfg.CleanerDedupeBufferSize, int64(cfg.CleanerIoBufferSize)
	if dedupe <= 0 {
		dedupe = 128 << 20
	}
	if io <= 0 {
		io = 512 << 10
	}
	// As Kafka: the dedupe buffer is shared by the threads, the I/O buffer
	// too and each thread's half of it is for writing.
	c.mapBytes = dedupe / int64(c.threads)
	c.writeBuf = int(max(io/int64(c.threads)/2, 4096))
	for _, d := range m.dirs {
		path := filepath.Join(d, CleanerOffsetCheckpointFile)
		cps, err := readOffsetCheckpoint(m.fs, path)
		if err != nil {
			// Losing it costs one full pass per log, not data.
			m.logger.Warn("storage: ignoring unreadable cleaner checkpoint", "file", path, "err", err)
			continue
		}
		for tp, off := range cps {
			// The logs were opened just now with no truncation counted
			// yet (gen 0); any truncation from here on resets the entry.
			c.state[tp] = &cleanState{checkpoint: off, genKnown: true, horizon: math.MaxInt64}
		}
	}
	return c
}

// Cleaner is the manager's log cleaner. Its threads run only when
// ManagerConfig.CleanerEnable is set; CleanOnce works either way.
func (m *Manager) Cleaner() *Cleaner { return m.cleaner }

func (c *Cleaner) newWorker() *cleanerWorker {
	return &cleanerWorker{om: newOffsetMap(c.mapBytes, c.loadFactor), writeBuf: c.writeBuf}
}

// start launches the cleaner threads; they stop when ctx ends.
func (c *Cleaner) start(ctx context.Context) {
	for i := 0; i < c.threads; i++ {
		c.m.bg.Add(1)
		go func() {
			defer c.m.bg.Done()
			w := c.newWorker()
			t := time.NewTimer(0)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				_, _, did, _ := c.cleanOnce(ctx, w)
				if did {
					t.Reset(0)
				} else {
					t.Reset(c.backoff)
				}
			}
		}()
	}
}

// CleanOnce runs one pass on the dirtiest log that qualifies, if any, on
// the calling goroutine. ok is false when no log qualified.
func (c *Cleaner) CleanOnce(ctx context.Context) (tp partid.TopicPartition, stats CleanStats, ok bool, err error) {
	return c.cleanOnce(ctx, c.newWorker())
}

// Checkpoints returns the cleaner checkpoint of every partition it knows.
func (c *Cleaner) Checkpoints() map[partid.TopicPartition]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[partid.TopicPartition]int64{}
	for tp, st := range c.state {
		if st.checkpoint >= 0 {
			out[tp] = st.checkpoint
		}
	}
	return out
}

// cleanJob is a log chosen for a pass.
type cleanJob struct {
	tp         partid.TopicPartition
	log        *Log
	firstDirty int64
	ratio      float64
	due        bool // max.compaction.lag.ms or a delete horizon
}

func (c *Cleaner) cleanOnce(ctx context.Context, w *cleanerWorker) (partid.TopicPartition, CleanStats, bool, error) {
	job := c.grab()
	if job == nil {
		return partid.TopicPartition{}, CleanStats{}, false, nil
	}
	l := job.log
	res, err := l.clean(ctx, cleanParams{firstDirty: job.firstDirty, om: w.om, writeBuf: w.writeBuf})
	now := l.nowMs()
	c.mu.Lock()
	delete(c.busy, l)
	st := c.state[job.tp]
	if st != nil && st.log == l {
		switch {
		case err == nil:
			st.checkpoint, st.gen, st.genKnown = res.checkpoint, res.gen, true
			st.horizon, st.horizonKnown = res.horizon, true
			if res.checkpoint <= job.firstDirty {
				// Nothing new got clean (tombstones only, or the high
				// watermark stands inside a batch): do not spin on it.
				st.notBefore = now + c.backoff.Milliseconds()
			}
		case errors.Is(err, errCleanAborted), errors.Is(err, ErrClosed), errors.Is(err, ErrStorage), ctx.Err() != nil:
			st.notBefore = now + c.backoff.Milliseconds()
		default:
			st.notBefore = now + cleanerRetryDelay.Milliseconds()
		}
	}
	c.mu.Unlock()
	logger := c.m.logger.With("partition", job.tp.String())
	switch {
	case err == nil:
		s := &res.stats
		mb := float64(s.BytesRead) / (1 << 20)
		logger.Info("storage: cleaned log", "dirty_from", s.FirstDirty, "dirty_to", s.EndOffset,
			"segments", s.Segments, "into", s.Groups, "read_mb", mb, "written_mb", float64(s.BytesWritten)/(1<<20),
			"records_kept", s.RecordsKept, "records_read", s.RecordsRead, "seconds", s.Duration.Seconds(),
			"mb_per_sec", mb/max(s.Duration.Seconds(), 1e-9))
		if werr := c.writeCheckpoint(filepath.Dir(l.Dir())); werr != nil {
			logger.Error("storage: write cleaner checkpoint", "err", werr)
		}
	case errors.Is(err, errCleanAborted), errors.Is(err, ErrClosed), errors.Is(err, ErrStorage), ctx.Err() != nil:
		logger.Debug("storage: cleaning abandoned", "err", err)
	default:
		logger.Error("storage: cleaning failed; log left as it was and retried later", "retry_in", cleanerRetryDelay, "err", err)
	}
	return job.tp, res.stats, true, err
}

// grab picks the dirtiest qualifying log and marks it busy.
func (c *Cleaner) grab() *cleanJob {
	var best *cleanJob
	for tp, l := range c.m.Logs() {
		if l == nil {
			continue
		}
		cfg := l.Config()
		if !cfg.Compact {
			continue
		}
		now := l.nowMs()
		c.mu.Lock()
		st := c.stateLocked(tp, l)
		skip := c.busy[l] || now < st.notBefore
		view := *st
		c.mu.Unlock()
		if skip {
			continue
		}
		job, ok := c.examine(tp, l, &cfg, &view, now)
		if !ok {
			continue
		}
		if best == nil || (job.due && !best.due) || (job.due == best.due && job.ratio > best.ratio) {
			best = job
		}
	}
	if best == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy[best.log] {
		return nil // another thread took it meanwhile; the caller retries
	}
	c.busy[best.log] = true
	return best
}

// stateLocked returns the state of tp bound to l, starting afresh when the
// partition's log is another one than before (deleted and recreated).
func (c *Cleaner) stateLocked(tp partid.TopicPartition, l *Log) *cleanState {
	st := c.state[tp]
	switch {
	case st == nil:
		st = &cleanState{log: l, checkpoint: -1, horizon: math.MaxInt64}
		c.state[tp] = st
	case st.log == nil:
		st.log = l
	case st.log != l:
		*st = cleanState{log: l, checkpoint: -1, horizon: math.MaxInt64}
	}
	return st
}

// examine computes whether l qualifies, and how dirty it is.
func (c *Cleaner) examine(tp partid.TopicPartition, l *Log, cfg *LogConfig, st *cleanState, now int64) (*cleanJob, bool) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, false
	}
	snap := l.cleanSnapshotLocked()
	l.mu.Unlock()
	if snap.hwm < 0 {
		// The replica layer has not told the high watermark yet (a log
		// loaded at startup before its partition is set up). Beyond it a
		// follower may still truncate, and cleaning there could drop a
		// record whose successor the truncation removes; wait for it.
		return nil, false
	}

	checkpoint := st.checkpoint
	if st.genKnown && st.gen != snap.gen {
		checkpoint = -1 // truncated since: what was clean may be new data
	}
	c.mu.Lock()
	if cur := c.state[tp]; cur != nil && cur.log == l {
		if !cur.genKnown {
			cur.gen, cur.genKnown = snap.gen, true
		} else if cur.gen != snap.gen {
			cur.checkpoint, cur.gen = -1, snap.gen
		}
	}
	c.mu.Unlock()

	firstDirty := firstDirtyOffset(checkpoint, &snap)
	firstUncleanable := firstUncleanableOffset(&snap, cfg, firstDirty, now)
	var cleanBytes, dirtyBytes int64
	closed := snap.segs[:len(snap.segs)-1]
	for i, s := range closed {
		upper := snap.segs[i+1].base
		switch {
		case upper <= firstDirty:
			cleanBytes += s.size.Load()
		case firstDirty < firstUncleanable && s.base < firstUncleanable:
			dirtyBytes += s.size.Load()
		}
	}
	job := &cleanJob{tp: tp, log: l, firstDirty: firstDirty}
	if total := cleanBytes + dirtyBytes; total > 0 {
		job.ratio = float64(dirtyBytes) / float64(total)
	}
	if dirtyBytes > 0 && cfg.MaxCompactionLagMs > 0 && cfg.MaxCompactionLagMs < math.MaxInt64 {
		job.due = earliestDirtyTimestamp(closed, firstDirty) < now-cfg.MaxCompactionLagMs
	}
	if !job.due {
		horizon := st.horizon
		if !st.horizonKnown {
			horizon = scanDeleteHorizon(closed)
			c.mu.Lock()
			if cur := c.state[tp]; cur != nil && cur.log == l && !cur.horizonKnown {
				cur.horizon, cur.horizonKnown = horizon, true
			}
			c.mu.Unlock()
		}
		job.due = horizon <= now
	}
	if job.due || (dirtyBytes > 0 && job.ratio >= cfg.MinCleanableDirtyRatio) {
		return job, true
	}
	return nil, false
}

// earliestDirtyTimestamp is Kafka's view of how old the dirty data is for
// max.compaction.lag.ms: the smallest first-batch maxTimestamp (ignoring
// batches without one) over the closed segments holding dirty offsets.
func earliestDirtyTimestamp(closed []*segment, firstDirty int64) int64 {
	earliest := int64(math.MaxInt64)
	for i := max(findSegment(closed, firstDirty), 0); i < len(closed); i++ {
		s := closed[i]
		h, err := readHeaderAt(s.log, s.name, 0, s.size.Load())
		if err == nil && h.MaxTimestamp > 0 {
			earliest = min(earliest, h.MaxTimestamp)
		}
	}
	return earliest
}

// scanDeleteHorizon finds the earliest delete horizon stored in the closed
// segments (batch headers only), math.MaxInt64 when none: after a restart
// the cleaner does not remember when its tombstones expire.
func scanDeleteHorizon(closed []*segment) int64 {
	horizon := int64(math.MaxInt64)
	for _, s := range closed {
		sc := newBatchScanner(s.log, s.name, 0, s.size.Load())
		for {
			h, _, _, err := sc.next(false)
			if err != nil {
				break // EOF, or a segment retention just closed: no horizon from it
			}
			if h.Attributes&record.AttrDeleteHorizonSet != 0 {
				horizon = min(horizon, h.FirstTimestamp)
			}
		}
	}
	return horizon
}

// writeCheckpoint writes cleaner-offset-checkpoint of one log dir with the
// checkpoint of every partition of that dir the manager still has.
func (c *Cleaner) writeCheckpoint(dir string) error {
	c.cpMu.Lock()
	defer c.cpMu.Unlock()
	logs := c.m.Logs()
	out := map[partid.TopicPartition]int64{}
	c.mu.Lock()
	for tp, l := range logs {
		st := c.state[tp]
		if l == nil || st == nil || st.checkpoint < 0 || (st.log != nil && st.log != l) || filepath.Dir(l.Dir()) != dir {
			continue
		}
		out[tp] = st.checkpoint
	}
	c.mu.Unlock()
	if c.m.dirFailure(dir) != nil {
		return nil
	}
	return c.m.failDirOn(dir, writeOffsetCheckpoint(c.m.fs, filepath.Join(dir, CleanerOffsetCheckpointFile), out))
}
