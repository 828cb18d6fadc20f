//go:build unix

package storage

import (
	"os"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

// flockExclusive takes an exclusive flock without waiting. flock locks
// belong to the open file description, so a second open of the same file
// in this process is refused too.
func flockExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
