//go:build unix

package storage

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f shared and writable, so index
// entries written to the mapping reach the page cache (and fsync) like a
// write(2) would.
//
// The mapping is advised MADV_RANDOM: the writer touches each page of an
// index once, in order, and lookups binary-search it, so the kernel's
// fault-around readahead (which allocated and zeroed a window of pages of
// the preallocated file on every first touch, a tenth of the broker's CPU
// under produce load, and freed them again on trim) only costs.
func mapFile(f *os.File, size int64) ([]byte, error) {
	mm, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	adviseRandom(mm)
	return mm, nil
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}
