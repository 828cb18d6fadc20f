//go:build unix && !linux

package storage

// adviseRandom is Linux's readahead advice; elsewhere mappings keep the
// kernel's default.
func adviseRandom([]byte) {}
