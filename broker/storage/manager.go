package storage

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"kafgo/broker/partid"
	"kafgo/internal/uuid"
)

// ManagerConfig configures the log manager of a broker.
type ManagerConfig struct {
	LogDirs    []string
	BrokerID   int32
	ClusterID  string // from ZooKeeper; "" = take it from meta.properties or generate one
	DefaultLog LogConfig

	// Background periods; zero picks Kafka's defaults (retention 5 min,
	// checkpoints 60 s) and a 1 s flush.ms check.
	RetentionCheckInterval, FlushSchedulerInterval, CheckpointInterval time.Duration

	// The log cleaner (compaction of logs whose LogConfig has Compact).
	// Zero values pick Kafka's defaults; CleanerEnable has to be set.
	CleanerEnable           bool          // log.cleaner.enable: run the cleaner threads from Start
	CleanerThreads          int           // log.cleaner.threads 1
	CleanerBackoff          time.Duration // log.cleaner.backoff.ms 15 s: sleep when no log needs cleaning
	CleanerDedupeBufferSize int64         // log.cleaner.dedupe.buffer.size 128 MiB, shared by the threads
	CleanerIoBufferSize     int           // log.cleaner.io.buffer.size 512 KiB, shared by the threads
	CleanerDedupeLoadFactor float64       // log.cleaner.io.buffer.load.factor 0.9: how full the offset map gets

	Logger *slog.Logger
	Clock  func() time.Time
	// OnFlush is every log's OpenOptions.OnFlush.
	OnFlush func(time.Duration)
}

// Manager owns the log directories of a broker: their meta.properties, the
// partition logs inside them, the per-directory checkpoint files and the
// background retention, flush and checkpoint tasks.
type Manager struct {
	cfg       ManagerConfig
	dirs      []string
	logger    *slog.Logger
	clock     func() time.Time
	clusterID string

	mu      sync.RWMutex
	logs    map[partid.TopicPartition]*Log
	closed  bool
	started bool
	cancel  context.CancelFunc

	cpMu sync.Mutex // serialises checkpoint file writes
	bg   sync.WaitGroup

	cleaner *Cleaner
}

// OpenManager creates the log dirs if needed, checks or writes their
// meta.properties (refusing a directory that belongs to another broker or
// cluster), and loads every partition directory in parallel, recovering
// those of a directory without the clean-shutdown marker. The marker is
// removed once its directory is loaded, so a crash from now on is seen as
// unclean. Directories renamed for deletion are removed in the background.
func OpenManager(cfg ManagerConfig) (*Manager, error) {
	return OpenManagerContext(context.Background(), cfg)
}

// OpenManagerContext is OpenManager that stops loading partitions once ctx
// ends (a broker interrupted during start-up), closing what it opened. A
// partition already recovering finishes first; the ones left are recovered
// on the next start, as after a crash.
func OpenManagerContext(ctx context.Context, cfg ManagerConfig) (*Manager, error) {
	if len(cfg.LogDirs) == 0 {
		return nil, errors.New("storage: no log dirs configured")
	}
	if err := cfg.DefaultLog.Validate(); err != nil {
		return nil, err
	}
	if cfg.RetentionCheckInterval <= 0 {
		cfg.RetentionCheckInterval = 300 * time.Second
	}
	if cfg.FlushSchedulerInterval <= 0 {
		cfg.FlushSchedulerInterval = time.Second
	}
	if cfg.CheckpointInterval <= 0 {
		cfg.CheckpointInterval = 60 * time.Second
	}
	m := &Manager{cfg: cfg, logger: cfg.Logger, clock: cfg.Clock, logs: map[partid.TopicPartition]*Log{}}
	if m.logger == nil {
		m.logger = slog.Default()
	}
	if m.clock == nil {
		m.clock = time.Now
	}
	seen := map[string]bool{}
	for _, d := range cfg.LogDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("storage: log dir %s: %w", d, err)
		}
		if seen[abs] {
			return nil, fmt.Errorf("storage: log dir %s is listed twice", abs)
		}
		seen[abs] = true
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("storage: create log dir %s: %w", abs, err)
		}
		m.dirs = append(m.dirs, abs)
	}
	if err := m.checkMetaProperties(); err != nil {
		return nil, err
	}
	for _, d := range m.dirs {
		if err := m.loadDir(ctx, d); err != nil {
			for _, l := range m.logs {
				if l != nil {
					l.Close()
				}
			}
			return nil, err
		}
	}
	m.cleaner = newCleaner(m)
	return m, nil
}

// checkMetaProperties reconciles every dir's meta.properties with the
// configured broker id and cluster id, then writes the files that are
// missing or lack the cluster id.
func (m *Manager) checkMetaProperties() error {
	clusterID, clusterFrom := m.cfg.ClusterID, "the configuration"
	var write []string
	for _, d := range m.dirs {
		path := filepath.Join(d, MetaPropertiesFile)
		mp, err := ReadMetaProperties(path)
		if errors.Is(err, fs.ErrNotExist) {
			write = append(write, d)
			continue
		}
		if err != nil {
			return err
		}
		if mp.BrokerID != m.cfg.BrokerID {
			return fmt.Errorf("storage: %s has broker.id=%d but this broker is %d; the directory belongs to another broker: %w", path, mp.BrokerID, m.cfg.BrokerID, ErrInconsistentBrokerID)
		}
		switch {
		case mp.ClusterID == "":
			write = append(write, d)
		case clusterID == "":
			clusterID, clusterFrom = mp.ClusterID, path
		case mp.ClusterID != clusterID:
			return fmt.Errorf("storage: %s has cluster.id=%s but %s says %s; the directory belongs to another cluster: %w", path, mp.ClusterID, clusterFrom, clusterID, ErrInconsistentClusterID)
		}
	}
	if clusterID == "" {
		id, err := uuid.New()
		if err != nil {
			return fmt.Errorf("storage: generating a cluster id: %w", err)
		}
		clusterID = id.String()
		m.logger.Info("storage: generated cluster id", "cluster_id", clusterID)
	}
	m.clusterID = clusterID
	for _, d := range write {
		mp := MetaProperties{BrokerID: m.cfg.BrokerID, ClusterID: clusterID}
		if err := WriteMetaProperties(filepath.Join(d, MetaPropertiesFile), mp, m.clock()); err != nil {
			return err
		}
	}
	return nil
}

// loadDir opens every partition directory of one log dir, in parallel.
func (m *Manager) loadDir(ctx context.Context, root string) error {
	clean := fileExists(filepath.Join(root, CleanShutdownFile))
	rps, err := ReadOffsetCheckpoint(filepath.Join(root, RecoveryPointCheckpointFile))
	if err != nil {
		return err
	}
	starts, err := ReadOffsetCheckpoint(filepath.Join(root, LogStartOffsetCheckpointFile))
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("storage: list log dir %s: %w", root, err)
	}
	type job struct {
		tp   partid.TopicPartition
		path string
	}
	var jobs []job
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name, path := e.Name(), filepath.Join(root, e.Name())
		switch {
		case strings.HasSuffix(name, deleteDirMark):
			m.removeAsync(path)
			continue
		case strings.HasSuffix(name, futureDirMark):
			m.logger.Warn("storage: ignoring future replica directory (intra-broker moves are not supported)", "dir", path)
			continue
		}
		tp, err := parseTopicPartitionDir(name)
		if err != nil {
			m.logger.Warn("storage: ignoring directory that is not a partition", "dir", path, "err", err)
			continue
		}
		if _, dup := m.logs[tp]; dup {
			return fmt.Errorf("storage: partition %s has directories in two log dirs (%s and %s)", tp, m.logs[tp].Dir(), path)
		}
		jobs = append(jobs, job{tp, path})
		m.logs[tp] = nil // reserve, for the duplicate check
	}
	// A dir without partitions (a fresh one, or one whose broker never
	// created a log) has nothing to recover, whatever the marker says.
	if !clean && len(jobs) > 0 {
		m.logger.Info("storage: no clean shutdown marker; recovering unflushed segments", "dir", root, "partitions", len(jobs))
	}
	results := make([]*Log, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				results[i], errs[i] = OpenLog(j.path, m.cfg.DefaultLog, OpenOptions{
					RecoveryPoint:  rps[j.tp],
					LogStartOffset: starts[j.tp],
					CleanShutdown:  clean,
					Clock:          m.clock,
					Logger:         m.logger,
					OnFlush:        m.cfg.OnFlush,
				})
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	var failed error
	if err := ctx.Err(); err != nil {
		failed = fmt.Errorf("storage: loading %s interrupted: %w", root, err)
	}
	for i, j := range jobs {
		if failed == nil && errs[i] != nil {
			failed = fmt.Errorf("storage: load %s: %w", j.path, errs[i])
		}
	}
	if failed != nil {
		for _, l := range results {
			if l != nil {
				l.Close()
			}
		}
		for _, j := range jobs {
			delete(m.logs, j.tp)
		}
		return failed
	}
	for i, j := range jobs {
		m.logs[j.tp] = results[i]
	}
	if clean {
		if err := os.Remove(filepath.Join(root, CleanShutdownFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("storage: remove clean shutdown marker in %s: %w", root, err)
		}
		if err := syncDir(root); err != nil {
			return err
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// removeAsync deletes a directory in the background (topic deletion).
func (m *Manager) removeAsync(path string) {
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		if err := os.RemoveAll(path); err != nil {
			m.logger.Warn("storage: remove deleted partition directory", "dir", path, "err", err)
		}
	}()
}

// ClusterID is the cluster id the log dirs belong to.
func (m *Manager) ClusterID() string { return m.clusterID }

// LogDirs are the absolute log directories.
func (m *Manager) LogDirs() []string { return append([]string(nil), m.dirs...) }

// Log returns the log of tp if this broker has it.
func (m *Manager) Log(tp partid.TopicPartition) (*Log, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	l, ok := m.logs[tp]
	return l, ok
}

// Logs returns a copy of the partition → log map.
func (m *Manager) Logs() map[partid.TopicPartition]*Log {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[partid.TopicPartition]*Log, len(m.logs))
	for tp, l := range m.logs {
		out[tp] = l
	}
	return out
}

// GetOrCreateLog returns the log of tp, creating it in the log dir holding
// the fewest partitions (ties: the first listed) when it does not exist.
// A non-zero topicID is recorded in partition.metadata; a log that already
// has a different one is ErrInconsistentTopicID.
func (m *Manager) GetOrCreateLog(tp partid.TopicPartition, cfg LogConfig, topicID uuid.UUID) (*Log, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("storage: log manager: %w", ErrClosed)
	}
	if l, ok := m.logs[tp]; ok {
		if err := l.assignTopicID(topicID); err != nil {
			return nil, err
		}
		// A log loaded at startup has the broker defaults; the caller
		// knows the topic's config (compaction, retention).
		l.UpdateConfig(cfg)
		return l, nil
	}
	if err := ValidateTopicName(tp.Topic); err != nil {
		return nil, err
	}
	if tp.Partition < 0 {
		return nil, fmt.Errorf("storage: partition %d of %s is negative", tp.Partition, tp.Topic)
	}
	counts := map[string]int{}
	for _, l := range m.logs {
		counts[filepath.Dir(l.Dir())]++
	}
	root := m.dirs[0]
	for _, d := range m.dirs[1:] {
		if counts[d] < counts[root] {
			root = d
		}
	}
	l, err := OpenLog(filepath.Join(root, tp.String()), cfg, OpenOptions{
		CleanShutdown: true, TopicID: topicID, Clock: m.clock, Logger: m.logger, OnFlush: m.cfg.OnFlush,
	})
	if err != nil {
		return nil, err
	}
	if err := syncDir(root); err != nil {
		l.Close()
		return nil, err
	}
	m.logs[tp] = l
	return l, nil
}

// DeleteLog closes the log of tp and renames its directory to
// "<topic>-<partition>.<uuid hex>-delete", removing it in the background as
// Kafka does. Deleting a partition this broker does not have is a no-op.
func (m *Manager) DeleteLog(tp partid.TopicPartition) error {
	m.mu.Lock()
	l, ok := m.logs[tp]
	delete(m.logs, tp)
	m.mu.Unlock()
	if !ok {
		return nil
	}
	if err := l.Close(); err != nil {
		m.logger.Warn("storage: close deleted log", "partition", tp.String(), "err", err)
	}
	id, err := uuid.New()
	if err != nil {
		return fmt.Errorf("storage: naming %s for deletion: %w", l.Dir(), err)
	}
	root := filepath.Dir(l.Dir())
	dst := filepath.Join(root, tp.String()+"."+hex.EncodeToString(id[:])+deleteDirMark)
	if err := os.Rename(l.Dir(), dst); err != nil {
		return fmt.Errorf("storage: rename %s for deletion: %w", l.Dir(), err)
	}
	if err := syncDir(root); err != nil {
		return err
	}
	m.removeAsync(dst)
	return nil
}

// Shutdown stops the background tasks, closes every log (flushing it and
// writing its producer snapshot), writes the recovery-point and log-start
// checkpoints, and finally the clean-shutdown marker of every log dir whose
// logs all closed cleanly, so the next open skips recovery there.
func (m *Manager) Shutdown() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	if m.cancel != nil {
		m.cancel()
	}
	logs := make(map[partid.TopicPartition]*Log, len(m.logs))
	for tp, l := range m.logs {
		logs[tp] = l
	}
	m.mu.Unlock()
	m.bg.Wait()

	var mu sync.Mutex
	failed := map[string]bool{}
	var errs []error
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for _, l := range logs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := l.Close(); err != nil {
				mu.Lock()
				failed[filepath.Dir(l.Dir())] = true
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := m.writeCheckpoints(logs); err != nil {
		errs = append(errs, err)
		return errors.Join(errs...)
	}
	for _, d := range m.dirs {
		if failed[d] {
			continue
		}
		if err := writeFileAtomic(filepath.Join(d, CleanShutdownFile), nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
