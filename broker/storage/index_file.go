package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"kafgo/broker/storage/vfs"
)

// reserveChunk is how far ahead of the next entry the index's disk blocks
// are allocated: one fallocate per 8192 offset-index entries keeps the
// append path free of syscalls while still reporting ENOSPC as an error.
const reserveChunk = 64 << 10

// maxIndexFileBytes bounds the index files we are willing to map; Kafka's
// segment.index.bytes is an int, so anything larger is not an index.
const maxIndexFileBytes = math.MaxInt32

// indexFile is a file of fixed-size big-endian entries, memory-mapped shared
// so lookups are plain memory reads. It keeps no file descriptor: the file
// is opened only to map it, resize it or allocate blocks, and closed again
// (the mapping survives), so a broker's descriptors do not grow with its
// segments. The mapping itself is made on first use and may be dropped
// again when idle (mapCache bounds the mappings of the process, which
// vm.max_map_count limits): the entries stay in the page cache, and the
// next use maps the file again. There is one writer (the log, under its
// lock) and many readers:
//   - the writer stores an entry through the mapping, then publishes the
//     new count with an atomic store; readers load the count and only read
//     entries below it, so they never see a half-written entry;
//   - readers and the writer's stores hold mu shared; remapping (resize,
//     trim, close, and dropping an idle mapping) takes it exclusively.
//
// Blocks are allocated ahead of use (File.Allocate) because a store into a
// sparse hole of a shared mapping on a full disk raises SIGBUS instead of
// returning an error.
type indexFile struct {
	fs        vfs.FS
	path      string
	entrySize int64

	slot   cacheSlot // in mapCache while mapped
	mu     sync.RWMutex
	mm     vfs.Mapping // nil when the file is empty or not mapped now
	data   []byte      // mm.Bytes(); an in-memory copy for readIndexCopy
	size   int64       // file length in bytes
	cap    int64       // entries the file length can hold
	n      atomic.Int64
	closed bool

	reserved int64 // bytes of the file backed by allocated blocks; writer only

	// writes counts changes (entries stored, truncation, resizing); synced
	// is its value at the last sync, so a flush skips an index with
	// nothing new (most flush.messages=1 flushes add no index entry).
	writes, synced atomic.Int64
}

// openIndexFile opens or creates the file and maps it. Entries are counted
// from the file length like Kafka does; a length that is not a whole
// number of entries is reported by badLength so the caller can rebuild.
//
// Nothing is opened for an index that exists with a sound length: its
// size is all this needs until the first lookup maps it.
func openIndexFile(fsys vfs.FS, path string, entrySize int64) (x *indexFile, badLength bool, err error) {
	var size int64
	st, err := fsys.Stat(path)
	switch {
	case err == nil:
		size = st.Size()
	case errors.Is(err, fs.ErrNotExist):
		f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, false, fmt.Errorf("storage: create index %s: %w", path, err)
		}
		f.Close()
	default:
		return nil, false, fmt.Errorf("storage: stat index %s: %w", path, err)
	}
	x = &indexFile{fs: fsys, path: path, entrySize: entrySize}
	if size%entrySize != 0 || size > maxIndexFileBytes {
		badLength = true
		size = 0
		f, err := fsys.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return nil, false, fmt.Errorf("storage: open index %s: %w", path, err)
		}
		err = f.Truncate(0)
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("storage: truncate index %s: %w", path, err)
		}
	}
	x.size, x.cap = size, size/entrySize
	x.n.Store(size / entrySize)
	x.reserved = size
	return x, badLength, nil
}

// mapLocked maps the file; the caller holds mu exclusively and nothing is
// mapped.
func (x *indexFile) mapLocked() error {
	f, err := x.fs.OpenFile(x.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("storage: open index %s: %w", x.path, err)
	}
	defer f.Close()
	mm, err := f.Map(int(x.size))
	if err != nil {
		return fmt.Errorf("storage: mmap index %s (%d bytes): %w", x.path, x.size, err)
	}
	x.mm, x.data = mm, mm.Bytes()
	mapCache.admit(x)
	return nil
}

func (x *indexFile) unmapLocked() error {
	mm := x.mm
	if mm == nil {
		return nil
	}
	x.mm, x.data = nil, nil
	mapCache.remove(x)
	if err := mm.Unmap(); err != nil {
		return fmt.Errorf("storage: unmap index %s: %w", x.path, err)
	}
	return nil
}

func (x *indexFile) cacheSlot() *cacheSlot { return &x.slot }

// tryEvict drops the mapping when no reader or writer holds mu. Nothing is
// lost: stores through a shared mapping are in the page cache.
func (x *indexFile) tryEvict() bool {
	if !x.mu.TryLock() {
		return false
	}
	defer x.mu.Unlock()
	if mm := x.mm; mm != nil {
		x.mm, x.data = nil, nil
		mm.Unmap()
	}
	return true
}

// rlock takes mu shared with the file mapped, unless it is empty, closed,
// or cannot be mapped now (out of descriptors or mappings): readers then
// see no entries and scan the log instead, which is slow but correct.
// An index without entries is not mapped: there is nothing to read.
func (x *indexFile) rlock() { x.rlockFor(false) }

// rlockFor is rlock; store asks for the mapping even without entries (the
// writer is about to store the first).
func (x *indexFile) rlockFor(store bool) {
	x.mu.RLock()
	if x.data != nil || x.size == 0 || x.closed || (!store && x.n.Load() == 0) {
		x.slot.ref.Store(true)
		return
	}
	x.mu.RUnlock()
	x.mu.Lock()
	if x.data == nil && x.size > 0 && !x.closed {
		_ = x.mapLocked()
	}
	x.mu.Unlock()
	x.mu.RLock()
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
	if size == x.size {
		return nil
	}
	x.writes.Add(1)
	fail := func(err error) error {
		x.size, x.cap = 0, 0
		x.n.Store(0)
		return err
	}
	if err := x.unmapLocked(); err != nil {
		return fail(err)
	}
	f, err := x.fs.OpenFile(x.path, os.O_RDWR, 0)
	if err != nil {
		return fail(fmt.Errorf("storage: open index %s: %w", x.path, err))
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return fail(fmt.Errorf("storage: resize index %s to %d bytes: %w", x.path, size, err))
	}
	x.size, x.cap = size, size/x.entrySize
	if n := x.n.Load(); n > x.cap {
		x.n.Store(x.cap)
	}
	x.reserved = min(x.reserved, size)
	return nil
}

// trim shrinks the file to its entries, as Kafka's trimToValidSize.
func (x *indexFile) trim() error { return x.resize(x.n.Load() * x.entrySize) }

// full reports whether the file has no room for another entry.
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
	f, err := x.fs.OpenFile(x.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("storage: open index %s: %w", x.path, err)
	}
	err = f.Allocate(x.reserved, end-x.reserved)
	f.Close()
	if err != nil {
		return fmt.Errorf("storage: allocate index %s bytes [%d, %d): %w", x.path, x.reserved, end, err)
	}
	x.reserved = end
	return nil
}

// appendEntry stores e (entrySize bytes) after the last entry and publishes
// it. The caller checked full() and called reserve().
func (x *indexFile) appendEntry(e []byte) error {
	x.rlockFor(true)
	defer x.mu.RUnlock()
	if x.mm == nil {
		return fmt.Errorf("storage: index %s is not mapped", x.path)
	}
	n := x.n.Load()
	x.mm.Store(int(n*x.entrySize), e)
	x.n.Store(n + 1)
	x.writes.Add(1)
	return nil
}

// countLocked returns the entries a reader may use: the published count,
// bounded by the mapping (which a failed resize may have dropped). The
// caller holds mu.
func (x *indexFile) countLocked() int64 {
	return min(x.n.Load(), int64(len(x.data))/x.entrySize)
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

// sync makes the entries durable: msync of the mapping, or an fsync through
// a short-lived descriptor when nothing is mapped (an empty, trimmed index
// whose length changed).
func (x *indexFile) sync() error {
	w := x.writes.Load()
	if w == x.synced.Load() {
		return nil
	}
	x.mu.RLock()
	mm, path, closed := x.mm, x.path, x.closed
	var err error
	switch {
	case closed:
		err = ErrClosed
	case mm != nil:
		err = mm.Sync()
	default:
		var f vfs.File
		if f, err = x.fs.OpenFile(path, os.O_RDWR, 0); err == nil {
			err = f.Sync()
			f.Close()
		}
	}
	x.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("storage: fsync index %s: %w", path, err)
	}
	x.synced.Store(w)
	return nil
}

func (x *indexFile) rename(path string) error {
	if err := x.fs.Rename(x.path, path); err != nil {
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
	err := x.unmapLocked()
	x.size, x.cap = 0, 0
	x.n.Store(0)
	return err
}
