package storage

import (
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
)

// reserveChunk is how far ahead of the next entry the index's disk blocks
// are allocated: one fallocate per 8192 offset-index entries keeps the
// append path free of syscalls while still reporting ENOSPC as an error.
const reserveChunk = 64 << 10

// allocateIndexRange is allocateRange; a variable so tests can make the disk
// look full.
var allocateIndexRange = allocateRange

// maxIndexFileBytes bounds the index files we are willing to map; Kafka's
// segment.index.bytes is an int, so anything larger is not an index.
const maxIndexFileBytes = math.MaxInt32

// indexFile is a file of fixed-size big-endian entries, memory-mapped shared
// so lookups are plain memory reads. There is one writer (the log, under its
// lock) and many readers:
//   - the writer stores an entry into the mapping, then publishes the new
//     count with an atomic store; readers load the count and only read
//     entries below it, so they never see a half-written entry;
//   - remapping (resize, trim, close) and truncation take mu exclusively,
//     readers hold it shared for the length of one lookup.
//
// Blocks are allocated ahead of use (allocateRange) because a store into a
// sparse hole of a shared mapping on a full disk raises SIGBUS instead of
// returning an error.
type indexFile struct {
	path      string
	entrySize int64

	mu     sync.RWMutex
	f      *os.File
	mm     []byte
	n      atomic.Int64 // published entry count
	cap    int64        // entries the current file length can hold
	closed bool

	reserved int64 // bytes of the file backed by allocated blocks; writer only

	// writes counts changes (entries stored, truncation, resizing); synced
	// is its value at the last fsync, so a flush skips an index with
	// nothing new (most flush.messages=1 flushes add no index entry).
	writes, synced atomic.Int64
}

// openIndexFile opens or creates the file. Entries are counted from the file
// length like Kafka does; a length that is not a whole number of entries is
// reported by badLength so the caller can rebuild.
func openIndexFile(path string, entrySize int64) (x *indexFile, badLength bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("storage: open index %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("storage: stat index %s: %w", path, err)
	}
	size := st.Size()
	x = &indexFile{path: path, entrySize: entrySize, f: f}
	if size%entrySize != 0 || size > maxIndexFileBytes {
		badLength = true
		size = 0
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("storage: truncate index %s: %w", path, err)
		}
	}
	if err := x.remap(size); err != nil {
		f.Close()
		return nil, false, err
	}
	x.n.Store(size / entrySize)
	x.reserved = size
	return x, badLength, nil
}

// remap maps size bytes of the file; the caller holds mu or is the only user.
func (x *indexFile) remap(size int64) error {
	if err := unmapFile(x.mm); err != nil {
		return fmt.Errorf("storage: unmap index %s: %w", x.path, err)
	}
	x.mm = nil
	x.cap = 0
	if size == 0 {
		return nil
	}
	mm, err := mapFile(x.f, size)
	if err != nil {
		return fmt.Errorf("storage: mmap index %s (%d bytes): %w", x.path, size, err)
	}
	x.mm = mm
	x.cap = size / x.entrySize
	return nil
}

// resize sets the file length to size bytes (preallocation for the active
// segment, trimming on roll and close) and remaps it. Entries beyond the new
// length are dropped. On failure the index is left empty rather than
// mapped wrongly: lookups then fall back to scanning the log from the start
// of the segment, which is slow but correct.
func (x *indexFile) resize(size int64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return fmt.Errorf("storage: index %s: %w", x.path, ErrClosed)
	}
	if size == int64(len(x.mm)) {
		return nil
	}
	x.writes.Add(1)
	if err := unmapFile(x.mm); err != nil {
		return fmt.Errorf("storage: unmap index %s: %w", x.path, err)
	}
	x.mm, x.cap = nil, 0
	if err := x.f.Truncate(size); err != nil {
		x.n.Store(0)
		return fmt.Errorf("storage: resize index %s to %d bytes: %w", x.path, size, err)
	}
	if err := x.remap(size); err != nil {
		x.n.Store(0)
		return err
	}
	if n := x.n.Load(); n > x.cap {
		x.n.Store(x.cap)
	}
	x.reserved = min(x.reserved, size)
	return nil
}

// trim shrinks the file to its entries, as Kafka's trimToValidSize.
func (x *indexFile) trim() error { return x.resize(x.n.Load() * x.entrySize) }

// full reports whether the mapping has no room for another entry.
func (x *indexFile) full() bool { return x.n.Load() >= x.cap }

// reserve allocates disk blocks for the next entry, a chunk at a time.
func (x *indexFile) reserve() error {
	need := (x.n.Load() + 1) * x.entrySize
	if need <= x.reserved {
		return nil
	}
	limit := x.cap * x.entrySize
	if need > limit {
		return fmt.Errorf("storage: index %s is full (%d entries)", x.path, x.cap)
	}
	end := min(max(need, x.reserved+reserveChunk), limit)
	if err := allocateIndexRange(x.f, x.reserved, end-x.reserved); err != nil {
		return fmt.Errorf("storage: allocate index %s bytes [%d, %d): %w", x.path, x.reserved, end, err)
	}
	x.reserved = end
	return nil
}

// appendEntry stores e (entrySize bytes) after the last entry and publishes
// it. The caller checked full() and called reserve().
func (x *indexFile) appendEntry(e []byte) {
	n := x.n.Load()
	copy(x.mm[n*x.entrySize:(n+1)*x.entrySize], e)
	x.n.Store(n + 1)
	x.writes.Add(1)
}

// truncateEntries drops entries from n on. It takes mu so that no reader is
// in the middle of a lookup that loaded the old count while the writer goes
// on to overwrite the dropped slots.
func (x *indexFile) truncateEntries(n int64) {
	x.mu.Lock()
	if n < x.n.Load() {
		x.n.Store(n)
		x.writes.Add(1)
	}
	x.mu.Unlock()
}

func (x *indexFile) sync() error {
	w := x.writes.Load()
	if w == x.synced.Load() {
		return nil
	}
	if err := x.f.Sync(); err != nil {
		return fmt.Errorf("storage: fsync index %s: %w", x.path, err)
	}
	x.synced.Store(w)
	return nil
}

func (x *indexFile) rename(path string) error {
	if err := os.Rename(x.path, path); err != nil {
		return fmt.Errorf("storage: rename index %s: %w", x.path, err)
	}
	x.mu.Lock()
	x.path = path
	x.mu.Unlock()
	return nil
}

func (x *indexFile) filePath() string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.path
}

func (x *indexFile) close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	uerr := unmapFile(x.mm)
	x.mm, x.cap = nil, 0
	x.n.Store(0)
	cerr := x.f.Close()
	if uerr != nil {
		return fmt.Errorf("storage: unmap index %s: %w", x.path, uerr)
	}
	if cerr != nil {
		return fmt.Errorf("storage: close index %s: %w", x.path, cerr)
	}
	return nil
}
