//go:build unix

package storage

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

const (
	flagCreate = syscall.O_CREAT
	flagTrunc  = syscall.O_TRUNC
	flagExcl   = syscall.O_EXCL
)

// defaultMaxOpenFiles is half the soft RLIMIT_NOFILE, at least 64.
func defaultMaxOpenFiles() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 512
	}
	return int(max(64, min(rl.Cur/2, 1<<20)))
}

// defaultMaxIndexMappings leaves a quarter of vm.max_map_count, and a
// thousand more, to the Go runtime, the heap and anything else that maps
// memory; at least 256.
func defaultMaxIndexMappings() int {
	n := 65530
	if b, err := os.ReadFile("/proc/sys/vm/max_map_count"); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && v > 0 {
			n = v
		}
	}
	return max(256, n*3/4-1000)
}
