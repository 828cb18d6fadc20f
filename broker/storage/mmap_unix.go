//go:build unix

package storage

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f shared and writable, so index
// entries written to the mapping reach the page cache (and fsync) like a
// write(2) would.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}
