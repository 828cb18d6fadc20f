//go:build unix

package meta

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (created if missing), so two
// brokers, or two stores in one process, never write one embedded file.
// The lock lives on a separate file because the data file is replaced by
// rename on every write.
func lockFile(path string) (func() error, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is locked: the store is in use by another process or open store", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() error {
		// Closing the descriptor releases the flock.
		return f.Close()
	}, nil
}
