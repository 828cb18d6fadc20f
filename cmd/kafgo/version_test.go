package main

import (
	"runtime"
	"testing"
)

// TestVersion: `kafgo version` and `kafgo --version` print the version the
// build stamped (-ldflags "-X main.version=...") and the Go that built it.
func TestVersion(t *testing.T) {
	saved := version
	t.Cleanup(func() { version = saved })
	version = "1.2.3-test"
	want := "kafgo 1.2.3-test\n" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := execute(t, "", args...)
		if err != nil || out != want {
			t.Errorf("%v printed %q (%v), want %q", args, out, err, want)
		}
	}
	if _, _, err := execute(t, "", "version", "extra"); err == nil {
		t.Error("version accepted an argument")
	}
}
