package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// OpKind is a kind of file-system operation an Injector may fail.
type OpKind uint8

// The operations. OpSync covers fsync, fdatasync, msync of a mapping and
// fsync of a directory (SyncDir); OpWrite covers WriteAt; OpOpen every
// OpenFile.
const (
	OpOpen OpKind = iota
	OpRead
	OpWrite
	OpSync
	OpTruncate
	OpAllocate
	OpMap
	OpRename
	OpRemove
	OpMkdir
	OpStat
	OpReadDir
	OpChtimes
	numOpKinds
)

var opNames = [numOpKinds]string{"open", "read", "write", "sync", "truncate", "allocate", "map", "rename", "remove", "mkdir", "stat", "readdir", "chtimes"}

func (k OpKind) String() string {
	if k < numOpKinds {
		return opNames[k]
	}
	return fmt.Sprintf("op(%d)", k)
}

// Op is one operation about to run: its kind and the path it is on (for a
// rename, the old path; for SyncDir, the directory).
type Op struct {
	Kind OpKind
	Path string
}

func (o Op) String() string { return o.Kind.String() + " " + o.Path }

// Injector decides, before each operation, whether it fails: a non-nil
// error is returned instead of running it. It is called concurrently.
type Injector interface {
	MaybeError(Op) error
}

// InjectorFunc is an Injector from a function.
type InjectorFunc func(Op) error

// MaybeError calls f.
func (f InjectorFunc) MaybeError(op Op) error { return f(op) }

// ErrInjected is wrapped by every error an injector of this package returns
// (errors.Is also sees the errno it carries, EIO by default).
var ErrInjected = kafkaerr.Sentinel(kerr.KafkaStorageError, "vfs: injected error")

// InjectedError is the error a Counter returns: the errno of the failure
// (EIO, ENOSPC...) and the operation it failed.
type InjectedError struct {
	Op    Op
	Errno syscall.Errno
}

// Error is the errno's text: the path and operation are in the
// *fs.PathError wrapping it.
func (e *InjectedError) Error() string {
	return e.Errno.Error() + " (injected)"
}

// Is makes errors.Is match ErrInjected and the errno.
func (e *InjectedError) Is(target error) bool {
	return target == ErrInjected || target == e.Errno
}

// Counter is an Injector that fails the n-th operation (1-based) matching
// its kinds and path filter, and, with Sticky, every matching one after it
// (a dead disk). The zero Kinds matches every kind; a nil Match every path.
type Counter struct {
	N      int
	Kinds  []OpKind
	Match  func(path string) bool
	Errno  syscall.Errno // default EIO
	Sticky bool

	mu    sync.Mutex
	seen  int
	fired []Op
}

// PathContains is a Counter.Match for paths containing any of subs.
func PathContains(subs ...string) func(string) bool {
	return func(p string) bool {
		for _, s := range subs {
			if strings.Contains(p, s) {
				return true
			}
		}
		return false
	}
}

// MaybeError counts matching operations and fails the n-th.
func (c *Counter) MaybeError(op Op) error {
	if !c.matches(op) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen++
	if c.seen == c.N || (c.Sticky && c.N > 0 && c.seen > c.N) {
		c.fired = append(c.fired, op)
		errno := c.Errno
		if errno == 0 {
			errno = syscall.EIO
		}
		return &InjectedError{Op: op, Errno: errno}
	}
	return nil
}

func (c *Counter) matches(op Op) bool {
	if len(c.Kinds) > 0 {
		found := false
		for _, k := range c.Kinds {
			if k == op.Kind {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return c.Match == nil || c.Match(op.Path)
}

// Seen is how many matching operations ran or were failed so far.
func (c *Counter) Seen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// Fired lists the operations failed so far.
func (c *Counter) Fired() []Op {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Op(nil), c.fired...)
}

// WithErrors wraps fsys so that inj is asked before every operation,
// including those on files and mappings it opens.
func WithErrors(fsys FS, inj Injector) FS { return &errorFS{fs: fsys, inj: inj} }

type errorFS struct {
	fs  FS
	inj Injector
}

func (e *errorFS) check(kind OpKind, path string) error {
	return e.inj.MaybeError(Op{Kind: kind, Path: path})
}

func pathErr(op, path string, err error) error {
	return &fs.PathError{Op: op, Path: path, Err: err}
}

func (e *errorFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	if err := e.check(OpOpen, name); err != nil {
		return nil, pathErr("open", name, err)
	}
	f, err := e.fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, e: e}, nil
}

func (e *errorFS) Stat(name string) (fs.FileInfo, error) {
	if err := e.check(OpStat, name); err != nil {
		return nil, pathErr("stat", name, err)
	}
	return e.fs.Stat(name)
}

func (e *errorFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := e.check(OpReadDir, name); err != nil {
		return nil, pathErr("readdir", name, err)
	}
	return e.fs.ReadDir(name)
}

func (e *errorFS) MkdirAll(name string, perm fs.FileMode) error {
	if err := e.check(OpMkdir, name); err != nil {
		return pathErr("mkdir", name, err)
	}
	return e.fs.MkdirAll(name, perm)
}

func (e *errorFS) Remove(name string) error {
	if err := e.check(OpRemove, name); err != nil {
		return pathErr("remove", name, err)
	}
	return e.fs.Remove(name)
}

func (e *errorFS) RemoveAll(name string) error {
	if err := e.check(OpRemove, name); err != nil {
		return pathErr("removeall", name, err)
	}
	return e.fs.RemoveAll(name)
}

func (e *errorFS) Rename(oldpath, newpath string) error {
	if err := e.check(OpRename, oldpath); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return e.fs.Rename(oldpath, newpath)
}

func (e *errorFS) Chtimes(name string, atime, mtime time.Time) error {
	if err := e.check(OpChtimes, name); err != nil {
		return pathErr("chtimes", name, err)
	}
	return e.fs.Chtimes(name, atime, mtime)
}

func (e *errorFS) SyncDir(name string) error {
	if err := e.check(OpSync, name); err != nil {
		return pathErr("fsync", name, err)
	}
	return e.fs.SyncDir(name)
}

type errorFile struct {
	f File
	e *errorFS
}

// OSFile passes the descriptor through: zero-copy sends read the page
// cache directly and are not operations of the log.
func (f *errorFile) OSFile() *os.File { return OSFile(f.f) }
func (f *errorFile) Name() string     { return f.f.Name() }

func (f *errorFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.e.check(OpRead, f.f.Name()); err != nil {
		return 0, pathErr("read", f.f.Name(), err)
	}
	return f.f.ReadAt(p, off)
}

func (f *errorFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.e.check(OpWrite, f.f.Name()); err != nil {
		// Half the bytes reach the file first, as a write cut short by
		// a full disk would leave them: callers must cope with a torn
		// write, not just a refused one.
		n, _ := f.f.WriteAt(p[:len(p)/2], off)
		return n, pathErr("write", f.f.Name(), err)
	}
	return f.f.WriteAt(p, off)
}

func (f *errorFile) Truncate(size int64) error {
	if err := f.e.check(OpTruncate, f.f.Name()); err != nil {
		return pathErr("truncate", f.f.Name(), err)
	}
	return f.f.Truncate(size)
}

func (f *errorFile) Sync() error {
	if err := f.e.check(OpSync, f.f.Name()); err != nil {
		return pathErr("fsync", f.f.Name(), err)
	}
	return f.f.Sync()
}

func (f *errorFile) DataSync() error {
	if err := f.e.check(OpSync, f.f.Name()); err != nil {
		return pathErr("fdatasync", f.f.Name(), err)
	}
	return f.f.DataSync()
}

func (f *errorFile) Allocate(off, n int64) error {
	if err := f.e.check(OpAllocate, f.f.Name()); err != nil {
		return pathErr("fallocate", f.f.Name(), err)
	}
	return f.f.Allocate(off, n)
}

// Reserve is advice (see the package's Reserve): it passes through, and
// faults are injected at the writes it would have sped up.
func (f *errorFile) Reserve(off, n int64) error { return Reserve(f.f, off, n) }

func (f *errorFile) Stat() (fs.FileInfo, error) {
	if err := f.e.check(OpStat, f.f.Name()); err != nil {
		return nil, pathErr("stat", f.f.Name(), err)
	}
	return f.f.Stat()
}

func (f *errorFile) Map(size int) (Mapping, error) {
	if err := f.e.check(OpMap, f.f.Name()); err != nil {
		return nil, pathErr("mmap", f.f.Name(), err)
	}
	m, err := f.f.Map(size)
	if err != nil {
		return nil, err
	}
	return &errorMapping{m: m, name: f.f.Name(), e: f.e}, nil
}

func (f *errorFile) Close() error { return f.f.Close() }

type errorMapping struct {
	m    Mapping
	name string
	e    *errorFS
}

func (m *errorMapping) Bytes() []byte           { return m.m.Bytes() }
func (m *errorMapping) Store(off int, p []byte) { m.m.Store(off, p) }
func (m *errorMapping) Unmap() error            { return m.m.Unmap() }

func (m *errorMapping) Sync() error {
	if err := m.e.check(OpSync, m.name); err != nil {
		return pathErr("msync", m.name, err)
	}
	return m.m.Sync()
}
