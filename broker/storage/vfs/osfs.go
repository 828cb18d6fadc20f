package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Default is the operating system's file system.
var Default FS = osFS{}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &osFile{f}, nil
}

func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (osFS) MkdirAll(name string, perm fs.FileMode) error {
	return os.MkdirAll(name, perm)
}
func (osFS) Remove(name string) error               { return os.Remove(name) }
func (osFS) RemoveAll(name string) error            { return os.RemoveAll(name) }
func (osFS) Rename(oldpath, newpath string) error   { return os.Rename(oldpath, newpath) }
func (osFS) Chtimes(n string, a, m time.Time) error { return os.Chtimes(n, a, m) }

func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	cerr := d.Close()
	// Some file systems refuse fsync on a directory; there is nothing
	// more a process can do there, so that is not an error.
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return cerr
}

type osFile struct{ f *os.File }

func (o *osFile) OSFile() *os.File                         { return o.f }
func (o *osFile) Name() string                             { return o.f.Name() }
func (o *osFile) ReadAt(p []byte, off int64) (int, error)  { return o.f.ReadAt(p, off) }
func (o *osFile) WriteAt(p []byte, off int64) (int, error) { return o.f.WriteAt(p, off) }
func (o *osFile) Truncate(size int64) error                { return o.f.Truncate(size) }
func (o *osFile) Sync() error                              { return o.f.Sync() }
func (o *osFile) DataSync() error                          { return dataSync(o.f) }
func (o *osFile) Allocate(off, n int64) error              { return allocate(o.f, off, n) }
func (o *osFile) Reserve(off, n int64) error               { return reserve(o.f, off, n) }
func (o *osFile) Stat() (fs.FileInfo, error)               { return o.f.Stat() }
func (o *osFile) Close() error                             { return o.f.Close() }

func (o *osFile) Map(size int) (Mapping, error) {
	mm, err := mapFile(o.f, size)
	if err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: o.f.Name(), Err: err}
	}
	return &osMapping{mm: mm, name: o.f.Name()}, nil
}

type osMapping struct {
	mm   []byte
	name string
}

func (m *osMapping) Bytes() []byte           { return m.mm }
func (m *osMapping) Store(off int, p []byte) { copy(m.mm[off:off+len(p)], p) }

func (m *osMapping) Sync() error {
	if err := msync(m.mm); err != nil {
		return &fs.PathError{Op: "msync", Path: m.name, Err: err}
	}
	return nil
}

func (m *osMapping) Unmap() error {
	mm := m.mm
	m.mm = nil
	if mm == nil {
		return nil
	}
	if err := syscall.Munmap(mm); err != nil {
		return &fs.PathError{Op: "munmap", Path: m.name, Err: err}
	}
	return nil
}

var zeroPage [64 << 10]byte

// zeroFill writes zeros over [off, off+n) of f.
func zeroFill(f *os.File, off, n int64) error {
	for n > 0 {
		chunk := min(n, int64(len(zeroPage)))
		w, err := f.WriteAt(zeroPage[:chunk], off)
		if err != nil {
			return err
		}
		off += int64(w)
		n -= int64(w)
	}
	return nil
}
