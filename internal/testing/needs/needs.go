// Package needs decides what a test does when something it needs from
// outside Go is missing: ZooKeeper (and the Java it runs on), kcat, tmux,
// Node.js, a Python client library, openssl. The tests come in two tiers:
//
//   - `go test ./...` on a machine with only Go runs the unit tier. A test
//     that needs a missing tool is skipped with a reason that names the tool
//     and how to install it, and Main lists the skipped tests and their
//     reasons when the package's tests end. `go test -short` also skips the
//     end-to-end tier (broker processes, see E2E) outright.
//   - `make test` sets KAFGO_E2E_REQUIRED=1: then a missing tool fails the
//     test instead, so the CI machine cannot pass by running less.
//
// (`go test` with several packages shows a passing package's output only
// with -v; the skip reasons are in `go test -v` and `go test -json`.)
package needs

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
)

// RequiredEnv names the environment variable that turns a missing tool
// from a skip into a failure ("1"); the Makefile sets it for `make test`.
const RequiredEnv = "KAFGO_E2E_REQUIRED"

// Required reports whether missing tools fail tests (RequiredEnv=1).
func Required() bool { return os.Getenv(RequiredEnv) == "1" }

var (
	mu      sync.Mutex
	skipped = map[string]string{} // test name -> reason
)

// Missing ends the test because what it needs is missing: it fails when
// tools are required, else skips. why says what is missing and how to
// install it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (%s=1: required)", why, RequiredEnv)
	}
	mu.Lock()
	skipped[t.Name()] = why
	mu.Unlock()
	t.Skip(why)
}

// Tool returns the path of executable name on PATH, or ends the test as
// Missing with install as the advice.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, fmt.Sprintf("%s is not installed (%s)", name, install))
	}
	return path
}

// E2E marks t as an end-to-end test (it runs broker processes): under
// -short it is skipped, unless tools are required.
func E2E(t testing.TB) {
	t.Helper()
	if testing.Short() && !Required() {
		mu.Lock()
		skipped[t.Name()] = "end-to-end tier, not run under -short"
		mu.Unlock()
		t.Skip("end-to-end tier, not run under -short")
	}
}

// Main runs the package's tests and then lists the tests skipped for a
// missing tool (or -short), with why; use it in TestMain:
// os.Exit(needs.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if s := Summary(); s != "" {
		fmt.Println(s)
	}
	return code
}

// Summary lists the tests skipped so far and why, one a line ("" if none).
func Summary() string {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	names := make([]string, 0, len(skipped))
	for n := range skipped {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "needs: %d tests skipped (set %s=1 to fail them instead):", len(names), RequiredEnv)
	for _, n := range names {
		fmt.Fprintf(&b, "\n  %s: %s", n, skipped[n])
	}
	return b.String()
}
