package vfs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MemFS is an in-memory file system that remembers what is durable, so a
// test can cut the power (Crash). Durable are: a file's contents as of its
// last Sync, DataSync or Mapping.Sync; a directory's entries as of its last
// SyncDir. Everything else is in the "page cache" only.
//
// The root directory and the directories made by MkdirAll before the first
// SyncDir under them are as durable as their parents make them; tests
// usually create their root, then SyncDir its parent (or call
// SyncAll) to start from a durable state.
type MemFS struct {
	mu    sync.Mutex
	dirs  map[string]*memDir // by clean absolute path; "/" always exists
	clock int64              // logical mtime source
}

type memDir struct {
	entries map[string]*memNode // current
	durable map[string]*memNode // as of the last SyncDir
}

type memNode struct {
	dir   bool
	inode *memInode // files only
}

type memInode struct {
	data    []byte
	durable []byte
	mtime   time.Time
	maps    int // live mappings: resizes must not move data under them
}

// NewMem returns an empty in-memory file system holding only "/".
func NewMem() *MemFS {
	m := &MemFS{dirs: map[string]*memDir{}}
	m.dirs["/"] = newMemDir()
	return m
}

func newMemDir() *memDir {
	return &memDir{entries: map[string]*memNode{}, durable: map[string]*memNode{}}
}

func clean(name string) string {
	if !filepath.IsAbs(name) {
		name = "/" + name
	}
	return filepath.Clean(name)
}

func split(name string) (dir, base string) {
	name = clean(name)
	return filepath.Dir(name), filepath.Base(name)
}

func (m *MemFS) now() time.Time {
	m.clock++
	return time.Unix(1_700_000_000, 0).Add(time.Duration(m.clock) * time.Millisecond)
}

// lookup returns the node at name; the caller holds mu.
func (m *MemFS) lookup(name string) (*memNode, error) {
	name = clean(name)
	if name == "/" {
		return &memNode{dir: true}, nil
	}
	d, base := split(name)
	pd := m.dirs[d]
	if pd == nil {
		return nil, fs.ErrNotExist
	}
	n := pd.entries[base]
	if n == nil {
		return nil, fs.ErrNotExist
	}
	return n, nil
}

// OpenFile opens or creates a regular file.
func (m *MemFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	d, base := split(name)
	pd := m.dirs[d]
	if pd == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	n := pd.entries[base]
	switch {
	case n != nil && n.dir:
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	case n != nil && flag&syscall.O_CREAT != 0 && flag&syscall.O_EXCL != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrExist}
	case n == nil && flag&syscall.O_CREAT == 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	case n == nil:
		n = &memNode{inode: &memInode{mtime: m.now()}}
		pd.entries[base] = n
	}
	if flag&syscall.O_TRUNC != 0 {
		if err := n.inode.resize(0); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		n.inode.mtime = m.now()
	}
	writable := flag&(syscall.O_WRONLY|syscall.O_RDWR) != 0
	return &memFile{fs: m, ino: n.inode, name: name, writable: writable}, nil
}

// Stat describes name.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return m.info(filepath.Base(clean(name)), n), nil
}

func (m *MemFS) info(base string, n *memNode) fs.FileInfo {
	if n.dir {
		return memInfo{name: base, dir: true}
	}
	return memInfo{name: base, size: int64(len(n.inode.data)), mtime: n.inode.mtime}
}

// ReadDir lists a directory, sorted by name.
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirs[clean(name)]
	if d == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(d.entries))
	for base, n := range d.entries {
		out = append(out, fs.FileInfoToDirEntry(m.info(base, n)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// MkdirAll creates name and its missing parents.
func (m *MemFS) MkdirAll(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	if name == "/" {
		return nil
	}
	if n, err := m.lookup(name); err == nil {
		if !n.dir {
			return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENOTDIR}
		}
		return nil
	}
	parent, base := split(name)
	m.mu.Unlock()
	err := m.MkdirAll(parent, perm)
	m.mu.Lock()
	if err != nil {
		return err
	}
	pd := m.dirs[parent]
	if pd.entries[base] == nil {
		pd.entries[base] = &memNode{dir: true}
		m.dirs[name] = newMemDir()
	}
	return nil
}

// Remove removes a file or an empty directory.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	n, err := m.lookup(name)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if n.dir {
		if len(m.dirs[name].entries) > 0 {
			return &fs.PathError{Op: "remove", Path: name, Err: syscall.ENOTEMPTY}
		}
		delete(m.dirs, name)
	}
	d, base := split(name)
	delete(m.dirs[d].entries, base)
	return nil
}

// RemoveAll removes name and everything under it; a missing name is fine.
func (m *MemFS) RemoveAll(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = clean(name)
	n, err := m.lookup(name)
	if err != nil {
		return nil
	}
	if n.dir {
		for p := range m.dirs {
			if p == name || strings.HasPrefix(p, name+"/") {
				delete(m.dirs, p)
			}
		}
	}
	d, base := split(name)
	delete(m.dirs[d].entries, base)
	return nil
}

// Rename moves oldpath to newpath, replacing a file there.
func (m *MemFS) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldpath, newpath = clean(oldpath), clean(newpath)
	n, err := m.lookup(oldpath)
	if err != nil {
		return &fs.PathError{Op: "rename", Path: oldpath, Err: err}
	}
	nd, nbase := split(newpath)
	npd := m.dirs[nd]
	if npd == nil {
		return &fs.PathError{Op: "rename", Path: newpath, Err: fs.ErrNotExist}
	}
	if old := npd.entries[nbase]; old != nil && old.dir != n.dir {
		return &fs.PathError{Op: "rename", Path: newpath, Err: syscall.EEXIST}
	}
	od, obase := split(oldpath)
	delete(m.dirs[od].entries, obase)
	npd.entries[nbase] = n
	if n.dir {
		moved := map[string]*memDir{}
		for p, d := range m.dirs {
			if p == oldpath || strings.HasPrefix(p, oldpath+"/") {
				moved[newpath+strings.TrimPrefix(p, oldpath)] = d
				delete(m.dirs, p)
			}
		}
		for p, d := range moved {
			m.dirs[p] = d
		}
	}
	return nil
}

// Chtimes sets a file's modification time.
func (m *MemFS) Chtimes(name string, atime, mtime time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return &fs.PathError{Op: "chtimes", Path: name, Err: err}
	}
	if !n.dir {
		n.inode.mtime = mtime
	}
	return nil
}

// SyncDir makes the directory's current entries durable.
func (m *MemFS) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirs[clean(name)]
	if d == nil {
		return &fs.PathError{Op: "fsync", Path: name, Err: fs.ErrNotExist}
	}
	d.durable = maps(d.entries)
	return nil
}

func maps(e map[string]*memNode) map[string]*memNode {
	out := make(map[string]*memNode, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

// SyncAll makes everything durable, as a test's starting point.
func (m *MemFS) SyncAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.dirs {
		d.durable = maps(d.entries)
		for _, n := range d.entries {
			if !n.dir {
				n.inode.durable = slices.Clone(n.inode.data)
			}
		}
	}
}

// Crash returns the file system a power loss at this instant would leave:
// from "/" down, the durable entries of each directory, each file with its
// durable contents. m itself is unchanged (the test stops using it).
func (m *MemFS) Crash() *MemFS { return m.crash(nil) }

// CrashTorn is Crash, except that each file keeps a random part of what
// was written past its durable length and not synced (rng decides how
// much; the bytes are those written, or zeros where the page was never
// written back whole): a power loss in the middle of writeback. Files
// whose unsynced changes are not pure appends keep their durable contents.
func (m *MemFS) CrashTorn(rng *rand.Rand) *MemFS { return m.crash(rng) }

func (m *MemFS) crash(rng *rand.Rand) *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := NewMem()
	out.clock = m.clock
	seen := map[*memInode]*memInode{}
	var walk func(path string, d *memDir)
	walk = func(path string, d *memDir) {
		nd := out.dirs[path]
		names := make([]string, 0, len(d.durable))
		for name := range d.durable {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			n := d.durable[name]
			child := filepath.Join(path, name)
			if n.dir {
				sub := m.dirs[child]
				if sub == nil {
					// Renamed or removed since, and the parent
					// not synced: its current contents went with
					// it. Keep an empty directory.
					sub = newMemDir()
				}
				nd.entries[name] = &memNode{dir: true}
				out.dirs[child] = newMemDir()
				walk(child, sub)
				continue
			}
			ni := seen[n.inode]
			if ni == nil {
				ni = &memInode{data: slices.Clone(n.inode.durable), mtime: n.inode.mtime}
				if rng != nil {
					ni.data = tornTail(rng, n.inode.durable, n.inode.data)
				}
				seen[n.inode] = ni
			}
			nd.entries[name] = &memNode{inode: ni}
		}
		nd.durable = maps(nd.entries)
	}
	walk("/", m.dirs["/"])
	for _, d := range out.dirs {
		for _, n := range d.entries {
			if !n.dir {
				n.inode.durable = slices.Clone(n.inode.data)
			}
		}
	}
	return out
}

// tornTail keeps durable plus a random prefix of what data appended to it.
func tornTail(rng *rand.Rand, durable, data []byte) []byte {
	out := slices.Clone(durable)
	if len(data) <= len(durable) || !bytes.Equal(data[:len(durable)], durable) {
		return out
	}
	extra := data[len(durable):]
	keep := rng.IntN(len(extra) + 1)
	out = append(out, extra[:keep]...)
	// A page never written back reads as zeros: zero a random suffix of
	// what was kept, at a 4 KiB page boundary, sometimes.
	if keep > 0 && rng.IntN(3) == 0 {
		cut := len(durable) + rng.IntN(keep)
		cut -= cut % 4096
		cut = max(cut, len(durable))
		for i := cut; i < len(out); i++ {
			out[i] = 0
		}
	}
	return out
}

// String lists the files and their sizes (current/durable), for test
// failure messages.
func (m *MemFS) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	paths := make([]string, 0, len(m.dirs))
	for p := range m.dirs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		d := m.dirs[p]
		names := make([]string, 0, len(d.entries))
		for n := range d.entries {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			e := d.entries[n]
			_, durable := d.durable[n]
			if e.dir {
				fmt.Fprintf(&b, "%s/ durable=%v\n", filepath.Join(p, n), durable)
			} else {
				fmt.Fprintf(&b, "%s %d/%d durable=%v\n", filepath.Join(p, n), len(e.inode.data), len(e.inode.durable), durable)
			}
		}
	}
	return b.String()
}

// resize sets the length, zero-filling growth. With live mappings the data
// must not move: growth beyond the capacity is refused.
func (ino *memInode) resize(size int64) error {
	n := int(size)
	switch {
	case n <= len(ino.data):
		ino.data = ino.data[:n]
	case n <= cap(ino.data):
		old := len(ino.data)
		ino.data = ino.data[:n]
		clear(ino.data[old:])
	case ino.maps > 0:
		return fmt.Errorf("vfs: memfs cannot grow a mapped file beyond its capacity (%d > %d)", n, cap(ino.data))
	default:
		nd := make([]byte, n, max(n, 2*cap(ino.data)))
		copy(nd, ino.data)
		ino.data = nd
	}
	return nil
}

type memFile struct {
	fs       *MemFS
	ino      *memInode
	name     string
	writable bool
	closed   bool
}

func (f *memFile) Name() string { return f.name }

func (f *memFile) check(write bool) error {
	if f.closed {
		return fs.ErrClosed
	}
	if write && !f.writable {
		return syscall.EBADF
	}
	return nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(false); err != nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	}
	if off >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(true); err != nil {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: err}
	}
	if end := off + int64(len(p)); end > int64(len(f.ino.data)) {
		if err := f.ino.resize(end); err != nil {
			return 0, &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
	}
	copy(f.ino.data[off:], p)
	f.ino.mtime = f.fs.now()
	return len(p), nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(true); err != nil {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: err}
	}
	if err := f.ino.resize(size); err != nil {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: err}
	}
	f.ino.mtime = f.fs.now()
	return nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(false); err != nil {
		return &fs.PathError{Op: "fsync", Path: f.name, Err: err}
	}
	f.ino.durable = slices.Clone(f.ino.data)
	return nil
}

func (f *memFile) DataSync() error { return f.Sync() }

func (f *memFile) Allocate(off, n int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(true); err != nil {
		return &fs.PathError{Op: "fallocate", Path: f.name, Err: err}
	}
	if end := off + n; end > int64(len(f.ino.data)) {
		if err := f.ino.resize(end); err != nil {
			return &fs.PathError{Op: "fallocate", Path: f.name, Err: err}
		}
	}
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(false); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return memInfo{name: filepath.Base(f.name), size: int64(len(f.ino.data)), mtime: f.ino.mtime}, nil
}

// Map aliases the file's bytes: stores are seen by reads at once and become
// durable with Sync of the mapping or the file.
func (f *memFile) Map(size int) (Mapping, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(true); err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: f.name, Err: err}
	}
	if size > len(f.ino.data) {
		return nil, &fs.PathError{Op: "mmap", Path: f.name, Err: fmt.Errorf("vfs: memfs maps only within the file (%d > %d)", size, len(f.ino.data))}
	}
	f.ino.maps++
	return &memMapping{fs: f.fs, ino: f.ino, b: f.ino.data[:size:size]}, nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	return nil
}

type memMapping struct {
	fs  *MemFS
	ino *memInode
	b   []byte
}

func (m *memMapping) Bytes() []byte { return m.b }

func (m *memMapping) Store(off int, p []byte) {
	m.fs.mu.Lock()
	defer m.fs.mu.Unlock()
	copy(m.b[off:off+len(p)], p)
}

func (m *memMapping) Sync() error {
	m.fs.mu.Lock()
	defer m.fs.mu.Unlock()
	if m.b == nil {
		return fs.ErrClosed
	}
	m.ino.durable = slices.Clone(m.ino.data)
	return nil
}

func (m *memMapping) Unmap() error {
	m.fs.mu.Lock()
	defer m.fs.mu.Unlock()
	if m.b != nil {
		m.b = nil
		m.ino.maps--
	}
	return nil
}

type memInfo struct {
	name  string
	size  int64
	mtime time.Time
	dir   bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return i.mtime }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
