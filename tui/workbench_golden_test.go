package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// loadedWith is a model on f that has received the window size and the
// snapshots in order (so that rates and trends exist).
func loadedWith(t testing.TB, f *fakeSource, snaps []*Snapshot, o Options, w, h int) Model {
	t.Helper()
	if o.Target == "" {
		o.Target = "kafka-1.example:9092"
	}
	if o.Refresh == 0 {
		o.Refresh = 2e9
	}
	m := New(f, o)
	m, _ = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range snaps {
		m, _ = update(t, m, snapshotMsg{snap: s})
	}
	return m
}

// typed is the keys that type s.
func typed(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

func keys(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			out = append(out, p)
		case []string:
			out = append(out, p...)
		}
	}
	return out
}

func one(s func() *Snapshot) func() []*Snapshot {
	return func() []*Snapshot { return []*Snapshot{s()} }
}

// workbenchCase is a frame of the workbench: a view reached with keys,
// after snapshots (and any other messages), checked against its golden
// file and, where it acts, against what the source was asked to do.
type workbenchCase struct {
	name  string
	snaps func() []*Snapshot
	opt   Options
	setup func(*fakeSource)
	msgs  []tea.Msg
	keys  []string
	// want are lines the frame must contain, acts the actions the source
	// must have been asked for.
	want []string
	acts []string
}

func workbenchCases() []workbenchCase {
	unreachable := probeMsg{at: fixedTime, results: map[int32]error{1: nil, 2: nil, 3: errors.New("connect: connection refused")}}
	return []workbenchCase{
		// Rates and trends from six snapshots.
		{name: "rates-brokers", snaps: busy, opt: Options{View: ViewBrokers},
			want: []string{"in 117KiB/s", "350 rec/s"}},
		{name: "rates-topics", snaps: busy, opt: Options{View: ViewTopics}},
		{name: "rates-partitions", snaps: busy, opt: Options{View: ViewPartitions, Topic: "orders"}},
		{name: "rates-groups", snaps: busy, opt: Options{View: ViewGroups}},
		// Filter and sort.
		{name: "filter-typing-topics", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("/", "p", "a"),
			want: []string{"/pa" + cursorMark}},
		{name: "filter-topics", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("/", typed("or"), "enter"),
			want: []string{`filter "or": 1 of 3`}},
		{name: "filter-nothing-topics", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("/", typed("xyz"), "enter"),
			want: []string{"  no topic matches the filter"}},
		{name: "sort-topics", snaps: busy, opt: Options{View: ViewTopics}, keys: keys("s", "s", "S"),
			want: []string{"sorted by partitions descending"}},
		{name: "filter-partitions-offline", snaps: one(degraded), opt: Options{View: ViewPartitions, Topic: "orders"}, keys: keys("/", typed("none"), "enter"),
			want: []string{`filter "none": 1 of 3`}},
		// Drill-down pages.
		{name: "page-broker", snaps: busy, opt: Options{View: ViewBrokers}, keys: keys("enter")},
		{name: "page-broker-configs", snaps: one(healthy), opt: Options{View: ViewBrokers}, keys: keys("c"),
			want: []string{"(sensitive)"}},
		{name: "page-topic-configs", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("c"),
			want: []string{"* retention.ms"}},
		{name: "page-group", snaps: busy, opt: Options{View: ViewGroups}, keys: keys("enter")},
		{name: "page-transaction", snaps: one(withTxns), opt: Options{View: ViewTransactions}, keys: keys("j", "enter")},
		{name: "page-broker-partition", snaps: one(degraded), opt: Options{View: ViewBrokers}, keys: keys("enter", "j", "enter")},
		// Reassignments.
		{name: "reassignments", snaps: one(reassigning), opt: Options{View: ViewReassignments}},
		// Done, but the throttles are left: they still cap replication.
		{name: "reassignments-leftover-throttle", snaps: one(reassigned), opt: Options{View: ViewReassignments},
			want: []string{"replication throttle left set, nothing is moving", "clear it: kafgo reassign-partitions --verify --reassignment-json-file <plan>",
				"throttled: broker 1 leader 10MiB/s follower 10MiB/s", "throttled replicas: topic payments", "no reassignments in progress"}},
		{name: "reassigning-partitions", snaps: one(reassigning), opt: Options{View: ViewPartitions, Topic: "payments"}},
		// The message browser.
		{name: "browser-text", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m")},
		{name: "browser-json", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "k", "k", "d")},
		{name: "browser-hex", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "d", "d")},
		{name: "browser-goto-prompt", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "o", "-", "5", "m")},
		{name: "browser-goto-offset", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "o", typed("earliest"), "enter"),
			want: []string{"100 records 948–1047"}},
		{name: "browser-older", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "g", "up"),
			want: []string{"200 records 1000–1199"}},
		{name: "browser-follow", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "f"),
			setup: func(f *fakeSource) {
				f.tailBatches = [][]Record{{
					{Offset: 1200, Timestamp: fixedTime, Key: []byte("k"), KeySize: 1, Value: []byte("new one"), ValueSize: 7},
					{Offset: 1201, Timestamp: fixedTime, Key: []byte("k"), KeySize: 1, Value: []byte("new two"), ValueSize: 7},
				}}
			}, want: []string{"following"}},
		// The browser's filter: on the loaded records' keys, values and
		// headers; paging past the first match reads older records and
		// filters them too.
		{name: "browser-filter", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "/", typed("customer-3"), "enter"),
			want: []string{`filter "customer-3": 14 of the 100 records loaded match`, ">   1193"}},
		{name: "browser-filter-older", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("m", "/", typed("customer-3"), "enter", "g", "up"),
			want: []string{"200 records 1000–1199", `filter "customer-3": 28 of the 200 records loaded match`, ">   1095"}},
		{name: "browser-filter-header", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "/", typed("T-1150"), "enter"),
			want: []string{`filter "T-1150": 1 of the 100 records loaded match`}},
		{name: "browser-filter-none", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "/", typed("nowhere"), "enter"),
			want: []string{`no loaded record matches "nowhere"`}},
		{name: "record-json", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "k", "k", "d", "enter")},
		{name: "record-hex", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("m", "k", "d", "d", "enter")},
		{name: "browser-from-group", snaps: one(emptyGroup), opt: Options{View: ViewGroups}, keys: keys("enter", "enter"),
			want: []string{"100 records 1100–1199"}},
		{name: "record-text", snaps: one(emptyGroup), opt: Options{View: ViewGroups}, keys: keys("enter", "enter", "enter")},
		// Actions.
		{name: "create-topic-form", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("C", typed("audit"), "tab", "backspace", "backspace", "6")},
		{name: "create-topic-confirm", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("C", typed("audit"), "tab", "backspace", "backspace", "6", "enter", "enter"),
			want: []string{"Create topic audit with 6 partitions, replication factor default?"}},
		{name: "create-topic-done", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("C", typed("audit"), "tab", "backspace", "backspace", "6", "enter", "enter", "y"),
			want: []string{"create topic audit: done"}, acts: []string{"create audit 6 -1"}},
		{name: "create-topic-invalid", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("C", typed("bad name"), "enter", "enter", "enter")},
		{name: "create-topic-failed", snaps: one(healthy), opt: Options{View: ViewTopics},
			setup: func(f *fakeSource) { f.actErr = errors.New("tui: create topic audit: POLICY_VIOLATION") },
			keys:  keys("C", typed("audit"), "enter", "enter", "enter", "y"),
			want:  []string{"create topic audit failed: tui: create topic audit: POLICY_VIOLATION"}, acts: []string{"create audit -1 -1"}},
		{name: "delete-topic-confirm", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("D")},
		{name: "delete-topic-cancelled", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("D", "n"), acts: []string{}},
		{name: "read-only-delete", snaps: one(healthy), opt: Options{View: ViewTopics, ReadOnly: true}, keys: keys("D"),
			want: []string{"read-only mode (--read-only): Delete topic is disabled"}, acts: []string{}},
		{name: "read-only-help", snaps: one(healthy), opt: Options{View: ViewTopics, ReadOnly: true}, keys: keys("?")},
		{name: "add-partitions-form", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("P")},
		{name: "add-partitions-done", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("P", "enter", "y"),
			acts: []string{"partitions orders 4"}},
		{name: "reset-offsets-refused", snaps: one(healthy), opt: Options{View: ViewGroups}, keys: keys("R"),
			want: []string{"group billing is Stable: stop its 2 members first"}, acts: []string{}},
		{name: "reset-offsets-form", snaps: one(emptyGroup), opt: Options{View: ViewGroups}, keys: keys("R")},
		{name: "reset-offsets-done", snaps: one(emptyGroup), opt: Options{View: ViewGroups}, keys: keys("R", "ctrl+u", typed("latest"), "enter", "y"),
			acts: []string{"reset billing latest"}},
		{name: "alter-config-form", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("c", "j", "j", "enter")},
		{name: "alter-config-done", snaps: one(healthy), opt: Options{View: ViewTopics},
			keys: keys("c", "j", "j", "enter", "ctrl+u", "enter", "y"), acts: []string{"alter topic orders delete retention.ms"}},
		{name: "elect-confirm", snaps: one(degraded), opt: Options{View: ViewTopics}, keys: keys("j", "E"),
			want: []string{"Move the leadership of 1 partition of topic payments back to the preferred replica?"}},
		{name: "elect-done", snaps: one(degraded), opt: Options{View: ViewTopics}, keys: keys("j", "E", "y"),
			acts: []string{"elect payments[1]"}},
		{name: "elect-cluster-confirm", snaps: one(degraded), opt: Options{View: ViewBrokers}, keys: keys("E"),
			want: []string{"Cluster-wide: move the leadership of 1 partition back to the preferred replica?"}},
		// A filtered page counts what it leads over all its partitions,
		// and a filter matching nothing says so.
		{name: "page-broker-filtered", snaps: one(healthy), opt: Options{View: ViewBrokers}, keys: keys("enter", "/", typed("payments"), "enter"),
			want: []string{"6 partitions · 2 led here", `filter "payments": 1 of 6 shown`}},
		{name: "page-group-filter-none", snaps: one(healthy), opt: Options{View: ViewGroups}, keys: keys("enter", "/", typed("nowhere"), "enter"),
			want: []string{`  no match for "nowhere"`}},
		// Warnings, probes, help.
		{name: "warnings", snaps: one(degraded), opt: Options{View: ViewBrokers}, keys: keys("w")},
		// Without --admin: every figure only the admin endpoints know
		// is "-", and the header says why, once.
		{name: "no-admin-brokers", snaps: func() []*Snapshot { return []*Snapshot{noAdmin(), noAdmin()} }, opt: Options{View: ViewBrokers},
			want: []string{"MaxFollowerLag:         -", "ControllerEpoch:        -", noAdminNote}},
		{name: "no-admin-topics", snaps: one(noAdmin), opt: Options{View: ViewTopics}},
		{name: "unreachable-brokers", snaps: one(healthy), opt: Options{View: ViewBrokers}, msgs: []tea.Msg{unreachable}, keys: keys("G"),
			want: []string{"Broker 3 (admin kafka-3.example:9644) is unreachable since 09:30:15: connect: connection refused"}},
		// A partition whose leader does not answer says so before the
		// controller moves it.
		{name: "unreachable-partitions", snaps: one(healthy), opt: Options{View: ViewPartitions}, msgs: []tea.Msg{unreachable},
			want: []string{"leader-unreachable"}},
		{name: "unreachable-warnings", snaps: one(healthy), opt: Options{View: ViewBrokers}, msgs: []tea.Msg{unreachable}, keys: keys("w")},
		{name: "help-scrolled", snaps: one(healthy), opt: Options{View: ViewTopics}, keys: keys("?", "pgdown")},
	}
}

func TestGoldenWorkbench(t *testing.T) {
	for _, c := range workbenchCases() {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				f := newFake(fakeStep{snap: c.snaps()[len(c.snaps())-1]})
				if c.setup != nil {
					c.setup(f)
				}
				m := loadedWith(t, f, c.snaps(), c.opt, sz.w, sz.h)
				for _, msg := range c.msgs {
					m, _ = update(t, m, msg)
				}
				m = press(t, m, c.keys...)
				frame := m.View()
				for _, w := range c.want {
					// Checked where lines are not cut.
					if sz.w >= 100 && !strings.Contains(frame, w) {
						t.Errorf("frame lacks %q", w)
					}
				}
				if c.acts != nil {
					if got := f.Acts(); !slices.Equal(got, c.acts) && !(len(got) == 0 && len(c.acts) == 0) {
						t.Errorf("actions %q, want %q", got, c.acts)
					}
				}
				checkFrame(t, name, frame, sz.w, sz.h)
			})
		}
	}
}
