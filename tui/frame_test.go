package tui

import (
	"strings"
	"testing"
)

// TestHeaderTotalsFit: at 80 columns the cluster header keeps every
// total whole (records in, bytes in and out, lag) on a line of its own;
// wide enough, it is one line.
func TestHeaderTotalsFit(t *testing.T) {
	totals := []string{"in 350 rec/s", "352KiB/s in", "908KiB/s out", "lag 540"}
	for _, c := range []struct{ w, lines int }{{80, 2}, {160, 1}} {
		m := loadedWith(t, newFake(fakeStep{snap: busy()[5]}), busy(), Options{View: ViewBrokers}, c.w, 24)
		header := m.headerLines(c.w)
		if len(header) != c.lines {
			t.Errorf("%d columns: %d header lines, want %d: %q", c.w, len(header), c.lines, header)
		}
		joined := strings.Join(header, "\n")
		for _, want := range totals {
			if !strings.Contains(joined, want) {
				t.Errorf("%d columns: header lacks %q: %q", c.w, want, header)
			}
		}
		// The frame still has exactly its height, the rule under the
		// header.
		lines := strings.Split(m.View(), "\n")
		if len(lines) != 24 || !strings.HasPrefix(lines[2+len(header)], "───") {
			t.Errorf("%d columns: frame of %d lines, rule at %d:\n%s", c.w, len(lines), 2+len(header), m.View())
		}
	}
}
