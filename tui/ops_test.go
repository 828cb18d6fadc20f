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
