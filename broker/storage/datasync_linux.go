package storage

import (
	"os"
	"syscall"
)

// dataSync is fdatasync: the data and the metadata needed to read it back
// (an append's new size), without the timestamps an fsync also writes. It
// goes through SyscallConn so a concurrent Close waits for it, as with
// File.Sync.
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
