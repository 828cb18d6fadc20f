package tui

import (
	"strings"
	"testing"
	"time"
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

// TestWarningsPaneWrapsAtWords: the selected warning is shown in full
// under the list, broken between words, never inside one.
func TestWarningsPaneWrapsAtWords(t *testing.T) {
	text := "replication throttle left set with no reassignment in progress (rates on brokers 1,2,3): clear it with kafgo reassign-partitions --verify"
	var w warnLog
	w.add(time.Date(2024, 5, 17, 9, 30, 0, 0, time.UTC), text)
	var v warningsView
	st := newStyles(nil)
	v.scroll(&w, st, 24)
	out := v.render(&w, st, 40, 24)
	words := map[string]bool{}
	for _, word := range strings.Fields(text) {
		words[word] = true
	}
	// The detail is what follows the list's last blank line.
	var detail []string
	for _, l := range out {
		if strings.TrimSpace(l) == "" {
			detail = nil
			continue
		}
		detail = append(detail, l)
	}
	if len(detail) < 2 {
		t.Fatalf("the warning in full takes %d lines at 40 columns:\n%s", len(detail), strings.Join(out, "\n"))
	}
	for _, l := range detail {
		for _, word := range strings.Fields(l) {
			if !words[word] && word != "…" {
				t.Errorf("%q is not a word of the warning (cut inside a word?):\n%s", word, strings.Join(out, "\n"))
			}
		}
	}
}

// TestThroughputLineKeepsPartsWhole: narrower than its figures with
// their sparklines, the line drops the sparklines, then whole parts from
// its end; a figure never goes without its label.
func TestThroughputLineKeepsPartsWhole(t *testing.T) {
	st := newStyles(nil)
	s := func(vs ...float64) *series {
		var x series
		for _, v := range vs {
			x.add(v)
		}
		return &x
	}
	in, out, rec, recOut := s(1e5, 1.2e5), s(3e5, 3.1e5), s(90, 100), s(30, 39)
	for _, c := range []struct {
		w    int
		want string
	}{
		{60, "in 117KiB/s · out 303KiB/s · 100 rec/s in · 39 rec/s out"},
		{50, "in 117KiB/s · out 303KiB/s · 100 rec/s in"},
		{12, "in 117KiB/s"},
		{5, ""},
	} {
		if got := throughputLine(in, out, rec, recOut, st, c.w); got != c.want {
			t.Errorf("width %d: %q, want %q", c.w, got, c.want)
		}
	}
	if got := throughputLine(in, out, rec, recOut, st, 200); !strings.Contains(got, "39 rec/s out ") || !strings.ContainsAny(got, "▁▂▃▄▅▆▇█") {
		t.Errorf("wide: %q, want the sparklines", got)
	}
}

// TestOnceFrameWrapsWarnings: a printed frame lists the warnings wrapped
// at word breaks, each whole, or counts those left out.
func TestOnceFrameWrapsWarnings(t *testing.T) {
	s := degraded()
	long := "replication throttle left set with no reassignment in progress (rates on brokers 1,2,3; throttled replicas of topic payments): clear it with kafgo reassign-partitions --verify --reassignment-json-file <plan>"
	s.Warnings = []string{long}
	m := loadedWith(t, newFake(fakeStep{snap: s}), []*Snapshot{s}, Options{View: ViewBrokers, Once: true}, 80, 40)
	frame := m.View()
	if !strings.Contains(strings.Join(strings.Fields(frame), " "), long) {
		t.Fatalf("the warning is not whole in the frame:\n%s", frame)
	}
	for _, l := range strings.Split(frame, "\n") {
		if strings.HasSuffix(l, "…") {
			t.Errorf("a cut line: %q", l)
		}
	}
}
