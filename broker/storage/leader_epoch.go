package storage

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"kafgo/broker/storage/vfs"
)

// EpochEntry records that leader epoch Epoch began at StartOffset.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// undefinedEpoch and undefinedEpochOffset are Kafka's UNDEFINED_EPOCH(_OFFSET).
const (
	undefinedEpoch       = -1
	undefinedEpochOffset = -1
)

// LeaderEpochCache is KIP-101's leader epoch sequence of a partition, kept in
// memory and persisted to leader-epoch-checkpoint on every change. Entries
// have strictly increasing epochs and non-decreasing start offsets.
// It is safe for concurrent use.
type LeaderEpochCache struct {
	mu      sync.RWMutex
	fs      vfs.FS
	dirSync func() error // the directory fsync; nil: the file system's
	path    string       // "" keeps the cache in memory only
	entries []EpochEntry
	logger  *slog.Logger
}

// OpenLeaderEpochCache loads the cache from path (missing = empty),
// assigning the entries in file order as Kafka's cache does on load, so a
// checkpoint holding entries that Assign would have replaced (an epoch
// starting where the next one starts: a leader that was elected again before
// it appended anything, written by an older kafgo) comes back repaired.
func OpenLeaderEpochCache(path string, logger *slog.Logger) (*LeaderEpochCache, error) {
	return openLeaderEpochCache(vfs.Default, path, logger)
}

func openLeaderEpochCache(fsys vfs.FS, path string, logger *slog.Logger) (*LeaderEpochCache, error) {
	if logger == nil {
		logger = slog.Default()
	}
	c := &LeaderEpochCache{fs: fsys, path: path, logger: logger}
	if path == "" {
		return c, nil
	}
	entries, err := readLeaderEpochCheckpoint(fsys, path)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Epoch < 0 || e.StartOffset < 0 {
			logger.Warn("storage: dropping invalid leader epoch entry", "file", path, "epoch", e.Epoch, "start_offset", e.StartOffset)
			continue
		}
		c.assignLocked(e)
	}
	if len(c.entries) != len(entries) {
		logger.Warn("storage: rewriting leader epoch checkpoint without the entries later ones replace", "file", path, "read", len(entries), "kept", len(c.entries))
		if err := c.persistLocked(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// updateNeededLocked is Kafka's LeaderEpochFileCache.isUpdateNeeded: a
// different epoch than the latest, or the latest starting earlier.
func (c *LeaderEpochCache) updateNeededLocked(e EpochEntry) bool {
	n := len(c.entries)
	if n == 0 {
		return true
	}
	last := c.entries[n-1]
	return e.Epoch != last.Epoch || e.StartOffset < last.StartOffset
}

// assignLocked adds e as Kafka's assign does: entries at the end with an
// epoch at or above e's, or starting at or after e's start, go first
// (maybeTruncateNonMonotonicEntries), so the cache stays strictly
// increasing in both epoch and start. It reports whether anything changed.
func (c *LeaderEpochCache) assignLocked(e EpochEntry) bool {
	if !c.updateNeededLocked(e) {
		return false
	}
	i := len(c.entries)
	for i > 0 && (c.entries[i-1].Epoch >= e.Epoch || c.entries[i-1].StartOffset >= e.StartOffset) {
		i--
	}
	if i < len(c.entries) {
		c.logger.Info("storage: leader epoch entries replaced by a new epoch", "file", c.path, "removed", c.entries[i:], "epoch", e.Epoch, "start_offset", e.StartOffset)
	}
	c.entries = append(c.entries[:i], e)
	return true
}

// Assign records that epoch starts at startOffset, with Kafka's rules: the
// latest epoch again at or after its start is a no-op (the leader calls it
// on every append), and entries that the new one contradicts are dropped.
// A leader elected twice before it appended anything thus keeps only its
// newest epoch at that offset; keeping both would make OffsetForLeaderEpoch
// and Fetch's diverging-epoch check answer with the older, empty epoch
// forever.
func (c *LeaderEpochCache) Assign(epoch int32, startOffset int64) error {
	if epoch < 0 || startOffset < 0 {
		return fmt.Errorf("storage: leader epoch (%d, %d): epoch and offset must be >= 0", epoch, startOffset)
	}
	e := EpochEntry{Epoch: epoch, StartOffset: startOffset}
	c.mu.RLock()
	need := c.updateNeededLocked(e)
	c.mu.RUnlock()
	if !need {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.assignLocked(e) {
		return nil
	}
	return c.persistLocked()
}

// LatestEpoch is the highest cached epoch.
func (c *LeaderEpochCache) LatestEpoch() (int32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.entries) == 0 {
		return undefinedEpoch, false
	}
	return c.entries[len(c.entries)-1].Epoch, true
}

// latestBelow reports whether the cache is empty or its latest epoch is
// below epoch: a cheap check on the append path before Assign.
func (c *LeaderEpochCache) latestBelow(epoch int32) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries) == 0 || c.entries[len(c.entries)-1].Epoch < epoch
}

// EndOffsetFor answers OffsetForLeaderEpoch with Kafka's
// LeaderEpochFileCache.endOffsetFor rules:
//   - requested is the latest epoch: (latest, logEndOffset);
//   - requested is UNDEFINED (-1) or above the latest (or the cache is
//     empty): (-1, -1);
//   - otherwise, with H the first entry of a higher epoch and F the last
//     entry with epoch <= requested: (F.epoch, H.start), or (requested,
//     H.start) when requested is older than every entry.
func (c *LeaderEpochCache) EndOffsetFor(requested int32, logEndOffset int64) (int32, int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if requested == undefinedEpoch {
		return undefinedEpoch, undefinedEpochOffset
	}
	n := len(c.entries)
	if n > 0 && c.entries[n-1].Epoch == requested {
		return requested, logEndOffset
	}
	hi := -1
	for i, e := range c.entries {
		if e.Epoch > requested {
			hi = i
			break
		}
	}
	if hi < 0 {
		return undefinedEpoch, undefinedEpochOffset
	}
	if hi == 0 {
		return requested, c.entries[0].StartOffset
	}
	return c.entries[hi-1].Epoch, c.entries[hi].StartOffset
}

// TruncateFromEnd drops the entries starting at or after endOffset (follower
// truncation to endOffset).
func (c *LeaderEpochCache) TruncateFromEnd(endOffset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if endOffset < 0 {
		return nil
	}
	i := len(c.entries)
	for i > 0 && c.entries[i-1].StartOffset >= endOffset {
		i--
	}
	if i == len(c.entries) {
		return nil
	}
	c.entries = c.entries[:i]
	return c.persistLocked()
}

// TruncateFromStart drops the entries wholly below startOffset when the log
// start moves: entries starting at or before it go, and the last of them
// comes back with its start moved up to startOffset, because its epoch still
// covers the data from there on.
func (c *LeaderEpochCache) TruncateFromStart(startOffset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := 0
	for i < len(c.entries) && c.entries[i].StartOffset <= startOffset {
		i++
	}
	if i == 0 {
		return nil
	}
	last := c.entries[i-1]
	if i == 1 && last.StartOffset == startOffset {
		return nil
	}
	rest := append([]EpochEntry{{Epoch: last.Epoch, StartOffset: startOffset}}, c.entries[i:]...)
	c.entries = rest
	return c.persistLocked()
}

// Clear drops every entry (TruncateFullyAndStartAt).
func (c *LeaderEpochCache) Clear() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) == 0 {
		return nil
	}
	c.entries = nil
	return c.persistLocked()
}

// Entries returns a copy of the cache.
func (c *LeaderEpochCache) Entries() []EpochEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]EpochEntry(nil), c.entries...)
}

// EpochForOffset is the epoch the batch at offset was written in: the entry
// starting exactly at offset if any (the first such), else the last entry
// starting before it, as Kafka's epochForOffset.
func (c *LeaderEpochCache) EpochForOffset(offset int64) (int32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	prev, found := int32(undefinedEpoch), false
	for _, e := range c.entries {
		if e.StartOffset == offset {
			return e.Epoch, true
		}
		if e.StartOffset > offset {
			break
		}
		prev, found = e.Epoch, true
	}
	return prev, found
}

func (c *LeaderEpochCache) persistLocked() error {
	if c.path == "" {
		return nil
	}
	dirSync := c.dirSync
	if dirSync == nil {
		dirSync = func() error { return syncDir(c.fs, filepath.Dir(c.path)) }
	}
	if err := writeFileAtomicSync(c.fs, c.path, formatLeaderEpochCheckpoint(c.entries), dirSync); err != nil {
		return fmt.Errorf("storage: persist leader epochs: %w", err)
	}
	return nil
}
