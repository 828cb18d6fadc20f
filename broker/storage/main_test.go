package storage

import (
	"os"
	"testing"

	"kafgo/internal/testing/leakcheck"
)

// TestMain fails the run if goroutines outlive the tests: every manager,
// loop and timer a test starts is stopped before it ends.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
