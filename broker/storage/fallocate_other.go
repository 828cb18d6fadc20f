//go:build unix && !linux

package storage

import "os"

// allocateRange backs [off, off+n) of f with real blocks by writing zeros;
// see the Linux variant for why.
func allocateRange(f *os.File, off, n int64) error { return zeroFill(f, off, n) }
