package storage

import (
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"kafgo/broker/storage/vfs"
)

// Descriptors and mappings are budgets, not one per file: a broker with
// tens of thousands of partitions would otherwise need three descriptors
// per segment (.log, .index, .timeindex) and two mappings per segment, and
// run out of both (RLIMIT_NOFILE, vm.max_map_count) long before memory or
// disk. Index files keep no descriptor at all (index_file.go); their
// mappings, and the descriptors of .log and .txnindex files, live in two
// process-wide caches of bounded size that close (or unmap) idle ones and
// reopen them on demand. Both limits are per process, so the caches are
// too: every log of every manager in the process shares them.
//
// A descriptor in use is pinned and never closed under its user: a read
// or write pins it for the call, a FileRegion handed to the network layer
// pins it until Release (the sendfile is done), so eviction can only pick
// descriptors nobody is using. A region dropped without Release is
// unpinned when the garbage collector finds it unreachable.

// handleCache bounds how many resources of one kind (open descriptors,
// memory mappings) are held at once. Eviction follows the CLOCK algorithm,
// an approximation of least-recently-used that costs a user one atomic
// store per access: each entry has a referenced bit, set on use; the hand
// sweeps the ring, clearing set bits and evicting the first idle entry
// whose bit was clear. The limit is soft: when every entry is busy, a new
// one is admitted anyway rather than failing the operation.
type handleCache struct {
	name      string
	limit     atomic.Int64
	mu        sync.Mutex
	ring      []evictable
	hand      int
	evictions atomic.Int64
}

// evictable is an entry of a handleCache.
type evictable interface {
	cacheSlot() *cacheSlot
	// tryEvict releases the resource if nobody uses it and reports
	// whether it is gone. It is called with the cache's mu held and must
	// not block (TryLock its own lock).
	tryEvict() bool
}

// cacheSlot is an entry's place in its cache.
type cacheSlot struct {
	pos int // position in the ring plus one, 0 when out of it; guarded by the cache's mu
	ref atomic.Bool
}

func newHandleCache(name string, limit int) *handleCache {
	c := &handleCache{name: name}
	c.limit.Store(int64(limit))
	return c
}

// admit enters e, which has just taken its resource, and evicts idle
// entries while the cache is over its limit.
func (c *handleCache) admit(e evictable) {
	s := e.cacheSlot()
	s.ref.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.pos > 0 {
		return
	}
	c.ring = append(c.ring, e)
	s.pos = len(c.ring)
	limit := int(c.limit.Load())
	for tries := 2 * len(c.ring); len(c.ring) > limit && tries > 0; tries-- {
		if c.hand >= len(c.ring) {
			c.hand = 0
		}
		v := c.ring[c.hand]
		if v == e || v.cacheSlot().ref.Swap(false) {
			c.hand++
			continue
		}
		if v.tryEvict() {
			c.removeLocked(v)
			c.evictions.Add(1)
			continue // the hand now points at the entry swapped in
		}
		c.hand++
	}
}

// remove takes e out (its resource was released by its owner).
func (c *handleCache) remove(e evictable) {
	c.mu.Lock()
	c.removeLocked(e)
	c.mu.Unlock()
}

func (c *handleCache) removeLocked(e evictable) {
	s := e.cacheSlot()
	if s.pos == 0 {
		return
	}
	i, last := s.pos-1, len(c.ring)-1
	c.ring[i] = c.ring[last]
	c.ring[i].cacheSlot().pos = i + 1
	c.ring[last] = nil
	c.ring = c.ring[:last]
	s.pos = 0
}

// stats reports the entries held, the limit and the evictions so far.
func (c *handleCache) stats() (held, limit int, evictions int64) {
	c.mu.Lock()
	held = len(c.ring)
	c.mu.Unlock()
	return held, int(c.limit.Load()), c.evictions.Load()
}

var (
	fileCache = newHandleCache("open files", defaultMaxOpenFiles())
	mapCache  = newHandleCache("index mappings", defaultMaxIndexMappings())
)

// SetMaxOpenFiles bounds the segment files (.log, .txnindex) storage keeps
// open in this process (the broker's log.open.files.max); n <= 0 restores
// the default, half of the process's RLIMIT_NOFILE soft limit (the other
// half is for connections and short-lived opens). Lowering it takes
// effect as files are next opened.
func SetMaxOpenFiles(n int) {
	if n <= 0 {
		n = defaultMaxOpenFiles()
	}
	fileCache.limit.Store(int64(n))
}

// SetMaxIndexMappings bounds the index files storage keeps mapped in this
// process; n <= 0 restores the default, derived from vm.max_map_count.
func SetMaxIndexMappings(n int) {
	if n <= 0 {
		n = defaultMaxIndexMappings()
	}
	mapCache.limit.Store(int64(n))
}

// HandleStats are the numbers of the descriptor and mapping caches.
type HandleStats struct {
	OpenFiles, MaxOpenFiles, IndexMappings, MaxIndexMappings int
	FileEvictions, MappingEvictions                          int64
}

// Handles reports the process's cached descriptors and mappings.
func Handles() HandleStats {
	var s HandleStats
	s.OpenFiles, s.MaxOpenFiles, s.FileEvictions = fileCache.stats()
	s.IndexMappings, s.MaxIndexMappings, s.MappingEvictions = mapCache.stats()
	return s
}

// cachedFile is a file opened on demand through fileCache: the .log of a
// segment, or its .txnindex. It reads, writes, truncates and syncs like a
// vfs.File, taking the descriptor from the cache for the length of each
// call (reopening the file, by its current name, when it was evicted).
// Renames go through it so a reopen finds the file. After close, the
// descriptor is closed once the last pin is released.
//
// fsyncs through a descriptor opened after the data was written are as
// good as any: dirty pages belong to the file, not to a descriptor, and
// Linux (4.16+) reports a write-back error not yet seen by anyone to the
// next fsync of the file from any descriptor.
type cachedFile struct {
	fs   vfs.FS
	flag int
	slot cacheSlot

	mu     sync.Mutex
	path   string
	f      vfs.File // nil while evicted
	pins   int
	closed bool
}

// newCachedFile wraps the file at path, opened with flag on demand; f, if
// not nil, is the file already open there.
func newCachedFile(fsys vfs.FS, path string, flag int, f vfs.File) *cachedFile {
	h := &cachedFile{fs: fsys, flag: flag &^ (flagCreate | flagTrunc | flagExcl), path: path, f: f}
	if f != nil {
		fileCache.admit(h)
	}
	return h
}

func (h *cachedFile) cacheSlot() *cacheSlot { return &h.slot }

func (h *cachedFile) tryEvict() bool {
	if !h.mu.TryLock() {
		return false
	}
	defer h.mu.Unlock()
	if h.pins > 0 {
		return false
	}
	if h.f != nil {
		h.f.Close() // nothing to lose: data reaches the file on write, errors on fsync
		h.f = nil
	}
	return true
}

// acquire returns the open file, pinned until release.
func (h *cachedFile) acquire() (vfs.File, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &fs.PathError{Op: "open", Path: h.path, Err: fs.ErrClosed}
	}
	if h.f == nil {
		f, err := h.fs.OpenFile(h.path, h.flag, 0)
		if err != nil {
			return nil, err
		}
		h.f = f
		fileCache.admit(h)
	}
	h.pins++
	h.slot.ref.Store(true)
	return h.f, nil
}

func (h *cachedFile) release() {
	h.mu.Lock()
	h.pins--
	if h.pins == 0 && h.closed && h.f != nil {
		h.f.Close()
		h.f = nil
		fileCache.remove(h)
	}
	h.mu.Unlock()
}

// Name is the file's current path.
func (h *cachedFile) Name() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.path
}

func (h *cachedFile) ReadAt(p []byte, off int64) (int, error) {
	f, err := h.acquire()
	if err != nil {
		return 0, err
	}
	defer h.release()
	return f.ReadAt(p, off)
}

func (h *cachedFile) WriteAt(p []byte, off int64) (int, error) {
	f, err := h.acquire()
	if err != nil {
		return 0, err
	}
	defer h.release()
	return f.WriteAt(p, off)
}

func (h *cachedFile) Truncate(size int64) error {
	f, err := h.acquire()
	if err != nil {
		return err
	}
	defer h.release()
	return f.Truncate(size)
}

func (h *cachedFile) Reserve(off, n int64) error {
	f, err := h.acquire()
	if err != nil {
		return err
	}
	defer h.release()
	return vfs.Reserve(f, off, n)
}

func (h *cachedFile) DataSync() error {
	f, err := h.acquire()
	if err != nil {
		return err
	}
	defer h.release()
	return f.DataSync()
}

func (h *cachedFile) Sync() error {
	f, err := h.acquire()
	if err != nil {
		return err
	}
	defer h.release()
	return f.Sync()
}

func (h *cachedFile) Stat() (fs.FileInfo, error) {
	f, err := h.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	return f.Stat()
}

// rename renames the file; a reopen uses the new name.
func (h *cachedFile) rename(path string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.fs.Rename(h.path, path); err != nil {
		return err
	}
	h.path = path
	return nil
}

// Close closes the file for good: at once, or when the last pin (a region
// being sent) is released.
func (h *cachedFile) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	if h.pins > 0 || h.f == nil {
		if h.f == nil {
			fileCache.remove(h)
		}
		return nil
	}
	err := h.f.Close()
	h.f = nil
	fileCache.remove(h)
	return err
}

// pin returns the open file pinned until the hold is released (or found
// unreachable by the garbage collector).
func (h *cachedFile) pin() (vfs.File, *fileHold, error) {
	f, err := h.acquire()
	if err != nil {
		return nil, nil, err
	}
	hold := &fileHold{h: h}
	hold.cleanup = runtime.AddCleanup(hold, (*cachedFile).release, h)
	return f, hold, nil
}

// fileHold keeps a cachedFile's descriptor open for a FileRegion.
type fileHold struct {
	h       *cachedFile
	done    atomic.Bool
	cleanup runtime.Cleanup
}

// Release unpins the descriptor; later calls do nothing.
func (x *fileHold) Release() {
	if x == nil || !x.done.CompareAndSwap(false, true) {
		return
	}
	x.cleanup.Stop()
	x.h.release()
}
