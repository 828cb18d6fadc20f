package storage

import "syscall"

// adviseRandom turns off readahead on a mapping (see mapFile). Advice only:
// a kernel that refuses it still maps correctly.
func adviseRandom(mm []byte) { _ = syscall.Madvise(mm, syscall.MADV_RANDOM) }
