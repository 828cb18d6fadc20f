package vfs

import (
	"io/fs"
	"os"
	"time"
)

// FS is a file system. Paths are the operating system's.
type FS interface {
	// OpenFile opens name with os.OpenFile's flags (O_RDONLY, O_RDWR,
	// O_WRONLY, O_CREATE, O_EXCL, O_TRUNC).
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	RemoveAll(name string) error
	// Rename replaces newpath if it exists, as rename(2).
	Rename(oldpath, newpath string) error
	Chtimes(name string, atime, mtime time.Time) error
	// SyncDir makes the entries created, renamed or removed in a
	// directory durable (fsync of the directory).
	SyncDir(name string) error
}

// File is an open file. ReadAt and WriteAt take explicit offsets, so a
// File can be shared by concurrent readers and one writer; nothing uses a
// file position.
type File interface {
	Name() string
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Truncate(size int64) error
	// Sync makes the file's data and metadata durable (fsync).
	Sync() error
	// DataSync makes the data and what is needed to read it back (the
	// size) durable (fdatasync).
	DataSync() error
	// Allocate backs [off, off+n) with disk blocks, extending the file
	// if needed (fallocate mode 0), so that stores through a mapping
	// there cannot fault on a full disk; ENOSPC is reported here.
	Allocate(off, n int64) error
	Stat() (fs.FileInfo, error)
	// Map maps the first size bytes shared and writable. The mapping
	// outlives Close of the file.
	Map(size int) (Mapping, error)
	Close() error
}

// Mapping is a shared, writable memory mapping of the start of a file.
type Mapping interface {
	// Bytes is the mapped memory, for reading; it is invalid after
	// Unmap.
	Bytes() []byte
	// Store copies p into the mapping at off. Writers store through it
	// rather than into Bytes so that an in-memory FS can order stores
	// with its syncs; it cannot fail (see the package doc).
	Store(off int, p []byte)
	// Sync makes stores through the mapping durable (msync MS_SYNC).
	Sync() error
	Unmap() error
}

// Reserve asks the file system to set disk blocks aside for [off, off+n)
// of f without changing its size (fallocate FALLOC_FL_KEEP_SIZE), so later
// writes there only fill blocks the file already has: on ext4 an
// extending 16 KiB pwrite costs about twice one into reserved blocks. It
// is advice: a file or file system that cannot reserve returns nil, and
// a write into unreserved space still works (or reports the error
// itself). The reservation is invisible to readers and to the file's
// size; truncating the file to any size gives it back.
func Reserve(f File, off, n int64) error {
	if r, ok := f.(interface{ Reserve(off, n int64) error }); ok {
		return r.Reserve(off, n)
	}
	return nil
}

// OSFile returns the operating system file under f, for zero-copy sends
// (sendfile), or nil when f is not backed by one (the in-memory FS).
func OSFile(f File) *os.File {
	if o, ok := f.(interface{ OSFile() *os.File }); ok {
		return o.OSFile()
	}
	return nil
}

// OnDisk reports whether fsys reaches the operating system's files (so
// their paths can also be locked with flock, or sent with sendfile).
func OnDisk(fsys FS) bool {
	switch f := fsys.(type) {
	case osFS:
		return true
	case *errorFS:
		return OnDisk(f.fs)
	}
	return false
}
