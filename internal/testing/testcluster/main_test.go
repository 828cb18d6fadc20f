package testcluster

import (
	"os"
	"testing"

	"kafgo/internal/testing/needs"
)

// TestMain lists the tests skipped for a tool this machine lacks.
func TestMain(m *testing.M) { os.Exit(needs.Main(m)) }
