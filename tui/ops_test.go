package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
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

// lineWith is the frame's first line holding s, "" when none does.
func lineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestConfigScreens: a read-only config's reason names where its value
// comes from (a DEFAULT_CONFIG key is not in the broker's file); at 80
// columns a config's name stays whole and the SOURCE column gives way.
func TestConfigScreens(t *testing.T) {
	withDefault := func(f *fakeSource) {
		f.configs = fakeConfigs()
		r := ConfigResource{Broker: true, Name: "1"}
		f.configs[r] = append(f.configs[r], ConfigEntry{Name: "num.io.threads", Value: "8", Source: "DEFAULT_CONFIG", ReadOnly: true})
	}
	f := newFake(fakeStep{snap: healthy()})
	withDefault(f)
	m := loadedWith(t, f, []*Snapshot{healthy()}, Options{View: ViewBrokers}, 100, 30)
	m = press(t, m, "c", "G", "enter")
	if got := m.View(); !strings.Contains(got, "num.io.threads is read-only: not a dynamic config") || strings.Contains(got, "the broker's file sets it") {
		t.Errorf("reason for a read-only default:\n%s", got)
	}
	m = press(t, m, "g", "enter") // broker.id, set in the broker's file
	if got := m.View(); !strings.Contains(got, "broker.id is read-only: the broker's config file sets it") {
		t.Errorf("reason for a read-only static config:\n%s", got)
	}

	m = press(t, loaded(t, healthy(), Options{View: ViewBrokers}, 80, 24), "c")
	if l := lineWith(m.View(), "leader.replication"); !strings.Contains(l, "leader.replication.throttled.rate ") {
		t.Errorf("the name is cut at 80 columns: %q", l)
	}
}

// TestRecordAndBrowser: a header value shown in hex says so; the browser's
// go-to prompt shows its whole hint at 80 columns; End and G go to the end
// of a record.
func TestRecordAndBrowser(t *testing.T) {
	m := press(t, loaded(t, healthy(), Options{View: ViewTopics}, 100, 30), "m", "k", "k", "d", "d", "enter")
	if l := lineWith(m.View(), "trace-id:"); !strings.HasSuffix(l, "(hex)") {
		t.Errorf("a header value in hex, unmarked: %q", l)
	}
	m = press(t, loaded(t, healthy(), Options{View: ViewTopics}, 80, 24), "m", "o")
	if f := m.View(); !strings.Contains(f, "@<unix ms>") {
		t.Errorf("the go-to hint is cut at 80 columns:\n%s", f)
	}
	for _, end := range []string{"G", "end"} {
		m = press(t, loaded(t, healthy(), Options{View: ViewTopics}, 80, 24), "m", "k", "k", "d", "enter")
		before := m.View()
		m = press(t, m, end)
		if f := m.View(); f == before || !strings.Contains(f, "above") || strings.Contains(f, "more") {
			t.Errorf("%s in a record: not at its end:\n%s", end, f)
		}
	}
}

// TestReassignLeftoverHintOnItsOwnLines: the hint that clears a leftover
// throttle is on lines of its own, not packed with the throttle's status.
func TestReassignLeftoverHintOnItsOwnLines(t *testing.T) {
	m := loaded(t, reassigned(), Options{View: ViewReassignments}, 200, 30)
	f := m.View()
	for _, want := range []string{"  replication throttle left set, nothing is moving", "  clear it: " + clearByVerify, "  or: " + clearByConfigs} {
		found := false
		for _, l := range strings.Split(f, "\n") {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line %q:\n%s", want, f)
		}
	}
}

// TestElectPartitionWording: the election of one partition names it.
func TestElectPartitionWording(t *testing.T) {
	m := press(t, loaded(t, degraded(), Options{View: ViewPartitions, Topic: "payments"}, 100, 30), "j", "E")
	if f := m.View(); !strings.Contains(f, "Move the leadership of payments-1 back to its preferred replica, broker 3?") {
		t.Errorf("election of one partition:\n%s", f)
	}
}

// TestOnceUnknownTopicIsAnError: tui --once --topic nosuch has no frame to
// print (the interactive hint "Press [ or ]" means nothing there): it is an
// error, so the command exits non-zero.
func TestOnceUnknownTopicIsAnError(t *testing.T) {
	for _, o := range []Options{{View: ViewPartitions, Topic: "nosuch"}, {View: ViewGroups, Group: "nosuch"}} {
		frame, err := RenderOnce(t.Context(), newFake(fakeStep{snap: healthy()}), o, 80, 24)
		if err == nil || !strings.Contains(err.Error(), "nosuch") || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("%+v: got %v\n%s", o, err, frame)
		}
	}
}

// TestUnreachableClusterFiguresUnknown: the only broker the TUI can ask
// stops answering. Nothing it showed is known any more: the broker count,
// the admin endpoint's state, the clients it throttled, the rates; each
// says unknown, with how old the last value is, instead of "1 live",
// ADMIN "ok" and a throttle line as if current.
func TestUnreachableClusterFiguresUnknown(t *testing.T) {
	s := throttled()
	s.Brokers = s.Brokers[:1] // the bootstrap broker alone
	s.Controller.ID = 1
	for _, sz := range sizes {
		name := fmt.Sprintf("unreachable-cluster-%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			m := loadedWith(t, newFake(fakeStep{snap: s}), busyOf(s), Options{View: ViewBrokers}, sz.w, sz.h)
			down := errors.New("tui: metadata: dial tcp 127.0.0.1:9092: connect: connection refused")
			m, _ = update(t, m, probeMsg{at: fixedTime.Add(30 * time.Second), results: map[int32]error{1: errors.New("connect: connection refused")}})
			m, _ = update(t, m, snapshotMsg{err: down, at: fixedTime.Add(35 * time.Second)})
			frame := m.View()
			if sz.w >= 100 {
				for _, want := range []string{"Brokers:                unknown (1 live 35s ago)", "Broker 1 throttled (35s ago, unknown now): produce client-id ingest"} {
					if !strings.Contains(frame, want) {
						t.Errorf("frame lacks %q", want)
					}
				}
			}
			if l := lineWith(frame, "kafka-1.example:9092  "); strings.Contains(l, " ok ") || strings.HasSuffix(l, " ok") || strings.Contains(l, "KiB") {
				t.Errorf("the broker's row claims a current admin endpoint or rate: %q", l)
			}
			if strings.Contains(frame, "rec/s") {
				t.Errorf("rates shown as current:\n%s", frame)
			}
			checkFrame(t, name, frame, sz.w, sz.h)
		})
	}
}

// busyOf is s observed twice, a few records apart, so that it has rates.
func busyOf(s *Snapshot) []*Snapshot {
	first := *s
	first.Taken = s.Taken.Add(-2 * time.Second)
	first.Topics = append([]Topic(nil), s.Topics...)
	for ti := range first.Topics {
		t := &first.Topics[ti]
		t.Partitions = append([]Partition(nil), t.Partitions...)
		for pi := range t.Partitions {
			t.Partitions[pi].HW -= 100
		}
	}
	first.Brokers = append([]Broker(nil), s.Brokers...)
	first.Brokers[0].Counters = &Counters{BytesIn: 1000, BytesOut: 2000}
	last := *s
	last.Brokers = append([]Broker(nil), s.Brokers...)
	last.Brokers[0].Counters = &Counters{BytesIn: 201000, BytesOut: 402000}
	return []*Snapshot{&first, &last}
}
