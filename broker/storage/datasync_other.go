//go:build !linux

package storage

import "os"

// dataSync is fsync where fdatasync is not available.
func dataSync(f *os.File) error { return f.Sync() }
