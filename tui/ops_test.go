package tui

import (
	"fmt"
	"strings"
	"testing"
)

// Tests of what an operator trying the TUI for the first time ran into
// (issue 16, items 13 to 16).

// busyNonPreferred is busy with orders-1 led by broker 3, not its
// preferred replica 2: the header counts 1 non-preferred.
func busyNonPreferred() []*Snapshot {
	snaps := busy()
	for _, s := range snaps {
		for ti := range s.Topics {
			if s.Topics[ti].Name == "orders" {
				s.Topics[ti].Partitions[1].Leader = 3
			}
		}
	}
	return snaps
}

// TestAlarmColumnsKeptAt80x24: at 80x24 the header counts a non-preferred
// leader, so the Topics table keeps NON-PREF and the Partitions table
// keeps STATE, the columns that say which, before the throughput columns.
func TestAlarmColumnsKeptAt80x24(t *testing.T) {
	for _, c := range []struct {
		name   string
		opt    Options
		column string
	}{
		{"alarm-topics", Options{View: ViewTopics}, "NON-PREF"},
		{"alarm-partitions", Options{View: ViewPartitions, Topic: "orders"}, "STATE"},
	} {
		name := fmt.Sprintf("%s-80x24", c.name)
		t.Run(name, func(t *testing.T) {
			snaps := busyNonPreferred()
			m := loadedWith(t, newFake(fakeStep{snap: snaps[len(snaps)-1]}), snaps, c.opt, 80, 24)
			frame := m.View()
			if !strings.Contains(frame, "1 non-preferred") {
				t.Fatalf("the header raises no alarm:\n%s", frame)
			}
			var head string
			for _, l := range strings.Split(frame, "\n") {
				if strings.Contains(l, "PARTITION") {
					head = l
					break
				}
			}
			if !strings.Contains(head, c.column) {
				t.Errorf("the table header %q lacks %s, which explains the header's alarm", head, c.column)
			}
			checkFrame(t, name, frame, 80, 24)
		})
	}
}

// TestPrefilledInputIsReplaced: a field filled in for the operator (the
// next partition count, a config's current value) is selected: typing
// replaces it instead of appending to it, backspace clears it, and the
// prompt names the key that clears a field.
func TestPrefilledInputIsReplaced(t *testing.T) {
	m := loaded(t, healthy(), Options{View: ViewTopics}, 100, 30)
	m = press(t, m, "P", "5", "enter")
	if f := m.View(); !strings.Contains(f, "Raise orders from 3 to 5 partitions?") {
		t.Errorf("typing 5 over the offered 4:\n%s", f)
	}
	m = loaded(t, healthy(), Options{View: ViewTopics}, 100, 30)
	m = press(t, m, keys("c", "j", "j", "enter", typed("3600000"), "enter")...)
	if f := m.View(); !strings.Contains(f, "Set retention.ms=3600000 on topic orders?") {
		t.Errorf("typing 3600000 over 86400000:\n%s", f)
	}
	m = loaded(t, healthy(), Options{View: ViewTopics}, 100, 30)
	m = press(t, m, "P")
	if f := m.View(); !strings.Contains(f, "ctrl+u: clear") {
		t.Errorf("the prompt does not name the clear key:\n%s", f)
	}
	// Once typed into, the field appends again; backspace on a selected
	// value clears it whole.
	m = press(t, m, "backspace", "1", "2", "enter")
	if f := m.View(); !strings.Contains(f, "Raise orders from 3 to 12 partitions?") {
		t.Errorf("backspace then 1, 2:\n%s", f)
	}
	for _, sz := range sizes {
		name := fmt.Sprintf("prefilled-selected-%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			m := press(t, loaded(t, healthy(), Options{View: ViewTopics}, sz.w, sz.h), "P")
			checkFrame(t, name, m.View(), sz.w, sz.h)
		})
	}
}
