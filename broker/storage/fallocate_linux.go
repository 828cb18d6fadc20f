//go:build linux

package storage

import (
	"errors"
	"os"
	"syscall"
)

// allocateRange makes sure the blocks backing [off, off+n) of f exist, so a
// later store through a shared mapping cannot fault with SIGBUS on a full
// disk: the failure surfaces here, as an error, before anything is written.
// Filesystems without fallocate get the blocks by writing zeros.
func allocateRange(f *os.File, off, n int64) error {
	err := syscall.Fallocate(int(f.Fd()), 0, off, n)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL) {
		return zeroFill(f, off, n)
	}
	return err
}
