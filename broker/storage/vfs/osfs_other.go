//go:build !linux

package vfs

import "os"

// dataSync is fsync where fdatasync is not available.
func dataSync(f *os.File) error { return f.Sync() }

// allocate backs [off, off+n) of f with real blocks by writing zeros; see
// the Linux variant for why.
func allocate(f *os.File, off, n int64) error { return zeroFill(f, off, n) }

// reserve is Linux's fallocate(FALLOC_FL_KEEP_SIZE); elsewhere writes
// allocate as they go.
func reserve(*os.File, int64, int64) error { return nil }

// adviseRandom is Linux's readahead advice; elsewhere mappings keep the
// kernel's default.
func adviseRandom([]byte) {}
