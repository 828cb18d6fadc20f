//go:build unix

package vfs

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps the first size bytes of f shared and writable, so stores
// reach the page cache (and fsync) like a write(2) would. The mapping is
// advised random (see adviseRandom).
func mapFile(f *os.File, size int) ([]byte, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var mm []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		mm, merr = syscall.Mmap(int(fd), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}); err != nil {
		return nil, err
	}
	if merr != nil {
		return nil, merr
	}
	adviseRandom(mm)
	return mm, nil
}

// msync writes the dirty pages of a mapping and waits (MS_SYNC); on Linux
// that is an fsync of the mapped range, metadata included.
func msync(mm []byte) error {
	if len(mm) == 0 {
		return nil
	}
	for {
		_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&mm[0])), uintptr(len(mm)), syscall.MS_SYNC)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}
