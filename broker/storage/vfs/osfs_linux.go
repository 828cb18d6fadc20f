package vfs

import (
	"errors"
	"os"
	"syscall"
)

// dataSync is fdatasync: the data and the metadata needed to read it back
// (an append's new size), without the timestamps an fsync also writes. It
// goes through SyscallConn so a concurrent Close waits for it.
func dataSync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// allocate makes sure the blocks backing [off, off+n) of f exist, so a
// later store through a shared mapping cannot fault with SIGBUS on a full
// disk: the failure surfaces here, as an error, before anything is
// written. File systems without fallocate get the blocks by writing zeros.
func allocate(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Fallocate(int(fd), 0, off, n); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr == nil {
		return nil
	}
	if errors.Is(ferr, syscall.EOPNOTSUPP) || errors.Is(ferr, syscall.ENOSYS) || errors.Is(ferr, syscall.EINVAL) {
		return zeroFill(f, off, n)
	}
	return &os.PathError{Op: "fallocate", Path: f.Name(), Err: ferr}
}

// reserve sets blocks aside for [off, off+n) past the end of f without
// changing its size (see Reserve). File systems without
// FALLOC_FL_KEEP_SIZE answer EOPNOTSUPP: that only costs speed.
func reserve(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	const keepSize = 0x1 // FALLOC_FL_KEEP_SIZE
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Fallocate(int(fd), keepSize, off, n); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr == nil || errors.Is(ferr, syscall.EOPNOTSUPP) || errors.Is(ferr, syscall.ENOSYS) {
		return nil
	}
	return &os.PathError{Op: "fallocate", Path: f.Name(), Err: ferr}
}

// adviseRandom turns off readahead on a mapping: the writer touches each
// page of an index once, in order, and lookups binary-search it, so the
// kernel's fault-around readahead (which allocated and zeroed a window of
// pages of the preallocated file on every first touch, a tenth of the
// broker's CPU under produce load, and freed them again on trim) only
// costs. Advice only: a kernel that refuses it still maps correctly.
func adviseRandom(mm []byte) { _ = syscall.Madvise(mm, syscall.MADV_RANDOM) }
