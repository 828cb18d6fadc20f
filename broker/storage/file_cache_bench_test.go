package storage

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"kafgo/broker/record"
)

// BenchmarkManyPartitions appends one small batch to each of 2,000 logs in
// turn and reads it back (ReadBytes), as a broker with many partitions
// serving produce and fetch does. files=all leaves every descriptor open
// (the cache never evicts: the cost of going through it); files=500 gives
// the cache a quarter of the .log files, so most appends and reads reopen
// their file (the cost of serving more partitions than descriptors).
func BenchmarkManyPartitions(b *testing.B) {
	const parts = 2000
	for _, limit := range []int{1 << 20, 500} {
		name := "files=all"
		if limit < parts {
			name = fmt.Sprintf("files=%d", limit)
		}
		b.Run(name, func(b *testing.B) {
			SetMaxOpenFiles(limit)
			defer SetMaxOpenFiles(0)
			benchManyPartitions(b, parts)
		})
	}
}

func benchManyPartitions(b *testing.B, parts int) {
	root := b.TempDir()
	logs := make([]*Log, parts)
	for i := range logs {
		logs[i] = openTestLog(b, filepath.Join(root, fmt.Sprintf("p-%d", i)), testConfig(), OpenOptions{})
		defer logs[i].Close()
	}
	batch := keyedBatch(b, record.CodecNone, 1, kv("key", "a value of some thirty bytes"))
	// The first append of a log writes its leader epoch checkpoint (an
	// fsync): done before the clock starts.
	for _, l := range logs {
		if _, err := l.AppendAsLeader(batch, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(batch)))
	// CPU time per operation too: on a shared machine the wall clock
	// mostly measures the scheduler.
	cpu0 := cpuTime()
	b.ResetTimer()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for i := 0; i < b.N; i++ {
		l := logs[i%parts]
		info, err := l.AppendAsLeader(batch, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.ReadBytes(info.FirstOffset, 1<<20, info.LastOffset+1); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
