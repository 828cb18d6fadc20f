package wire

import (
	"os"
	"testing"

	"kafgo/internal/testing/leakcheck"
)

// TestMain fails the run if goroutines outlive the tests: every server is
// shut down and every client closed, so none may remain.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
