// Package leakcheck fails a package's tests when goroutines they started
// outlive them: a server not shut down, a client not closed, a loop without
// a way to stop. Use it in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
//
// After the tests pass, Main waits up to a few seconds for the goroutines to
// wind down (closing is often asynchronous), then prints the stacks of the
// ones left and fails the run. Goroutines of the runtime, the testing
// package and the standard library's own background work are not counted.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Wait is how long Main waits for goroutines to end.
const Wait = 10 * time.Second

// Main runs m; when the tests pass it fails the run if goroutines leaked.
func Main(m *testing.M) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := Find(Wait); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: %d goroutines outlived the tests:\n\n%s\n", len(leaked), strings.Join(leaked, "\n\n"))
		return 1
	}
	return code
}

// Find returns the stacks of goroutines other than the caller's and the
// ignored ones, polling until none are left or wait has passed.
func Find(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		leaked := current()
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ignored are functions whose presence in a stack marks a goroutine that is
// not the tests' own: the test runner, the runtime's and the standard
// library's background goroutines.
var ignored = []string{
	"testing.(*M).",
	"testing.tRunner",
	"testing.runTests",
	"testing.(*T).Run",
	"runtime.goexit0",
	"runtime.ensureSigM",
	"os/signal.signal_recv",
	"os/signal.loop",
	"runtime.ReadTrace",
	"runtime/trace.Start",
	"runtime.runfinq",
	"runtime.bgsweep",
	"runtime.bgscavenge",
	"runtime.forcegchelper",
	"runtime.gcBgMarkWorker",
	"runtime.unique_runtime_registerUniqueMapCleanup",
	"internal/synctest.",
}

// current lists the goroutines now running that are not ignored.
func current() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // the calling goroutine comes first
		}
		if isIgnored(g) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func isIgnored(stack string) bool {
	for _, f := range ignored {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}
