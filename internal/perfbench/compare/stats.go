package compare

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/prometheus/procfs"
)

// cpuTime is the CPU time (user + system) process pid has used so far.
func cpuTime(pid int) (time.Duration, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, fmt.Errorf("compare: broker CPU: %w", err)
	}
	return procCPU(fs, pid)
}

// procCPU reads a process's CPU time from /proc/<pid>/stat (procfs parses
// it: the command name in parentheses may hold spaces and parentheses).
func procCPU(fs procfs.FS, pid int) (time.Duration, error) {
	p, err := fs.Proc(pid)
	if err != nil {
		return 0, fmt.Errorf("compare: broker CPU: %w", err)
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fmt.Errorf("compare: broker CPU of %d: %w", pid, err)
	}
	return time.Duration(st.CPUTime() * float64(time.Second)), nil
}

// cpuOf sums the CPU time of pids.
func cpuOf(pids []int) (time.Duration, error) {
	var total time.Duration
	for _, pid := range pids {
		d, err := cpuTime(pid)
		if err != nil {
			return 0, err
		}
		total += d
	}
	return total, nil
}

// median of xs (NaN when empty); xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratios divides a[i] by b[i] pairwise, over the shorter of the two.
func ratios(a, b []float64) []float64 {
	out := make([]float64, 0, min(len(a), len(b)))
	for i := range min(len(a), len(b)) {
		out = append(out, a[i]/b[i])
	}
	return out
}

// percentile is the nearest-rank q-quantile (0 < q <= 1) of sorted.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// quiesce waits, up to limit, until pids use at most a tenth of a CPU over
// 100 ms, so what a previous run left behind (a deleted topic's files
// being removed, a collection) is not counted in the next one.
func quiesce(pids []int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	prev, err := cpuOf(pids)
	for err == nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		var cur time.Duration
		if cur, err = cpuOf(pids); err != nil || cur-prev <= 10*time.Millisecond {
			return
		}
		prev = cur
	}
}
