//go:build !unix

package storage

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("storage: lock would block")

// flockExclusive is a no-op where flock is unavailable; kafgo targets Linux.
func flockExclusive(*os.File) error { return nil }
