package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"kafgo/internal/testing/clitest"
)

// keyMsg builds the message bubbletea sends for a key name as key.Binding
// spells it.
func keyMsg(k string) tea.KeyMsg {
	special := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "esc": tea.KeyEscape,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"ctrl+c": tea.KeyCtrlC, "shift+down": tea.KeyShiftDown, "shift+up": tea.KeyShiftUp,
		"backspace": tea.KeyBackspace, "ctrl+u": tea.KeyCtrlU,
	}
	if t, ok := special[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// update is Model.Update for tests, keeping the concrete type.
func update(t testing.TB, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	tm, cmd := m.Update(msg)
	out, ok := tm.(Model)
	if !ok {
		t.Fatalf("Update returned %T", tm)
	}
	return out, cmd
}

// press sends keys one by one. A key's command (loading a page, taking a
// snapshot, running an action) is run and its messages fed back, as the
// bubbletea loop would, and so are the commands those return, to a
// bounded depth; a refresh or probe timer is never run.
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = update(t, m, keyMsg(k))
		m = feed(t, m, cmd, 3)
	}
	return m
}

// feed runs cmd and hands its messages to the model, then those of the
// commands they return, depth levels deep.
func feed(t testing.TB, m Model, cmd tea.Cmd, depth int) Model {
	t.Helper()
	if cmd == nil || depth == 0 {
		return m
	}
	for _, msg := range run(cmd) {
		switch msg.(type) {
		case tickMsg, probeTickMsg:
			continue
		}
		var next tea.Cmd
		m, next = update(t, m, msg)
		switch msg.(type) {
		case snapshotMsg, probeMsg:
			continue // their commands are the refresh and probe timers
		}
		m = feed(t, m, next, depth-1)
	}
	return m
}

// run runs a command, and the commands of a batch.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// loaded is a model that has received the window size and one snapshot.
func loaded(t testing.TB, s *Snapshot, o Options, w, h int) Model {
	t.Helper()
	if o.Target == "" {
		o.Target = "kafka-1.example:9092"
	}
	if o.Refresh == 0 {
		o.Refresh = 2e9
	}
	m := New(newFake(fakeStep{snap: s}), o)
	m, _ = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = update(t, m, snapshotMsg{snap: s})
	return m
}

// checkFrame asserts the frame's shape and compares it with its golden
// file.
func checkFrame(t *testing.T, name, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, n, w, l)
		}
	}
	clitest.Golden(t, name+".golden", []byte(frame+"\n"))
}

var sizes = []struct{ w, h int }{{100, 30}, {80, 24}}

func TestGoldenViews(t *testing.T) {
	cases := []struct {
		name string
		snap func() *Snapshot
		opt  Options
		keys []string
	}{
		{"healthy-brokers", healthy, Options{View: ViewBrokers}, nil},
		{"healthy-topics", healthy, Options{View: ViewTopics}, nil},
		{"healthy-partitions", healthy, Options{View: ViewPartitions}, nil},
		{"healthy-groups", healthy, Options{View: ViewGroups}, nil},
		// broker 3 is down and selected: the detail line says so
		{"degraded-brokers", degraded, Options{View: ViewBrokers}, []string{"G"}},
		{"degraded-topics", degraded, Options{View: ViewTopics}, nil},
		{"degraded-partitions-offline-leader", degraded, Options{View: ViewPartitions, Topic: "orders"}, []string{"j"}},
		{"degraded-partitions-lagging-replica", degraded, Options{View: ViewPartitions, Topic: "orders"}, []string{"j", "j"}},
		{"degraded-groups-lag", degraded, Options{View: ViewGroups, Group: "billing"}, nil},
		{"degraded-groups-error", degraded, Options{View: ViewGroups}, []string{"G"}},
		{"many-topics-scrolled", many, Options{View: ViewTopics}, []string{"G", "k"}},
		{"many-partitions-scrolled", many, Options{View: ViewPartitions, Topic: "clicks"}, []string{"pgdown", "pgdown"}},
		{"many-groups-offsets-scrolled", many, Options{View: ViewGroups, Group: "clickstream"}, []string{"J", "J", "J"}},
		{"healthy-help", healthy, Options{View: ViewTopics}, []string{"?"}},
		{"txns-transactions", withTxns, Options{View: ViewTransactions}, nil},
		// the hanging one: past its 15m timeout
		{"txns-transactions-overdue", withTxns, Options{View: ViewTransactions}, []string{"j"}},
		// a cluster without KIP-664: the view says so
		{"unsupported-transactions", healthy, Options{View: ViewTransactions}, nil},
	}
	for _, c := range cases {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				m := press(t, loaded(t, c.snap(), c.opt, sz.w, sz.h), c.keys...)
				checkFrame(t, name, m.View(), sz.w, sz.h)
			})
		}
	}
}

// TestGoldenStates covers the frames around the data: before the first
// snapshot, when the cluster cannot be reached, when a refresh fails
// after a good one, and a terminal too small to draw in.
func TestGoldenStates(t *testing.T) {
	boom := errors.New("tui: metadata: dial tcp 127.0.0.1:9092: connect: connection refused")
	t.Run("connecting", func(t *testing.T) {
		m := New(newFake(fakeStep{snap: healthy()}), Options{Target: "kafka-1.example:9092", Refresh: 2e9})
		m, _ = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		checkFrame(t, "state-connecting-80x24", m.View(), 80, 24)
	})
	t.Run("unreachable", func(t *testing.T) {
		m := New(newFake(fakeStep{err: boom}), Options{Target: "kafka-1.example:9092", Refresh: 2e9})
		m, _ = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		m, _ = update(t, m, snapshotMsg{err: boom})
		checkFrame(t, "state-unreachable-80x24", m.View(), 80, 24)
	})
	t.Run("refresh failed", func(t *testing.T) {
		m := loaded(t, healthy(), Options{View: ViewTopics}, 80, 24)
		m, _ = update(t, m, snapshotMsg{err: boom})
		checkFrame(t, "state-refresh-failed-80x24", m.View(), 80, 24)
	})
	t.Run("refreshing", func(t *testing.T) {
		m := loaded(t, healthy(), Options{View: ViewTopics}, 80, 24)
		m, _ = update(t, m, keyMsg("r")) // the command is not run: still loading
		checkFrame(t, "state-refreshing-80x24", m.View(), 80, 24)
	})
	t.Run("too small", func(t *testing.T) {
		m := loaded(t, healthy(), Options{}, 30, 5)
		if got := m.View(); got != "terminal too small (30x5)" {
			t.Fatalf("got %q", got)
		}
	})
}

// TestGoldenColor pins the styled output: a colour terminal gets the
// degraded partitions in red and yellow, and the selection as a reversed
// bar instead of only the "> " gutter.
func TestGoldenColor(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI)
	for _, sz := range sizes {
		name := fmt.Sprintf("color-degraded-partitions-%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			m := press(t, loaded(t, degraded(), Options{View: ViewPartitions, Topic: "orders", Renderer: r}, sz.w, sz.h), "j", "j")
			frame := m.View()
			if !strings.Contains(frame, "\x1b[") {
				t.Fatal("no escape sequences in a colour frame")
			}
			checkFrame(t, name, frame, sz.w, sz.h)
		})
	}
}

// TestPlainHasNoEscapes: --no-color, pipes and the default renderer must
// not leak escape sequences into a frame.
func TestPlainHasNoEscapes(t *testing.T) {
	for v := View(0); v < numViews; v++ {
		m := loaded(t, degraded(), Options{View: v}, 100, 30)
		if f := m.View(); strings.Contains(f, "\x1b") {
			t.Errorf("%s: escape sequence in a plain frame:\n%q", v, f)
		}
	}
}

// TestGoldenOnce: a --once frame is printed, not used, so it carries no key
// help, no refresh schedule and no key hints; and a list cut to fit the
// height says how many rows it left out.
func TestGoldenOnce(t *testing.T) {
	cases := []struct {
		name string
		opt  Options
		more string // the line that counts the rows left out
	}{
		{"topics", Options{View: ViewTopics}, "  … 29 more"},
		{"partitions", Options{View: ViewPartitions, Topic: "clicks"}, "  … 18 more"},
		{"groups", Options{View: ViewGroups, Group: "clickstream"}, "  … 20 more"},
		{"transactions", Options{View: ViewTransactions}, "  … 16 more partitions"},
	}
	for _, c := range cases {
		name := "once-many-" + c.name + "-80x24"
		t.Run(name, func(t *testing.T) {
			c.opt.Target, c.opt.Refresh = "kafka-1.example:9092", 2e9
			snap := many()
			if c.opt.View == ViewTransactions {
				snap = withTxns()
			}
			frame, err := RenderOnce(context.Background(), newFake(fakeStep{snap: snap}), c.opt, 80, 24)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(frame, "\n")
			for _, interactive := range []string{"q quit", "more keys", "every 2s", "J/K", "refresh"} {
				if strings.Contains(frame, interactive) {
					t.Errorf("once frame shows %q", interactive)
				}
			}
			if !slices.Contains(lines, c.more) {
				t.Errorf("no %q line", c.more)
			}
			checkFrame(t, name, frame, 80, 24)
		})
	}
	t.Run("a body too tall is cut with a note", func(t *testing.T) {
		frame, err := RenderOnce(context.Background(), newFake(fakeStep{snap: healthy()}), Options{View: ViewPartitions}, 80, minHeight)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(frame, "\n")
		if len(lines) != minHeight || lines[len(lines)-2] != "  … 8 more lines" {
			t.Fatalf("frame:\n%s", frame)
		}
	})
}

// TestTransactionsTab: the transactions tab is there when the cluster
// serves KIP-664 and the tab keys reach it; without it the tab is hidden
// and skipped, and its key shows why.
func TestTransactionsTab(t *testing.T) {
	tabs := func(m Model) string { return strings.Split(m.View(), "\n")[1] }
	m := loaded(t, withTxns(), Options{View: ViewGroups}, 100, 30)
	if !strings.Contains(tabs(m), "5 Transactions") {
		t.Fatalf("no transactions tab: %q", tabs(m))
	}
	if m = press(t, m, "tab"); m.active != ViewTransactions {
		t.Fatalf("tab from groups went to %s", m.active)
	}
	if m = press(t, m, "tab"); m.active != ViewBrokers {
		t.Fatalf("tab from transactions went to %s", m.active)
	}
	if m = press(t, m, "shift+tab"); m.active != ViewTransactions {
		t.Fatalf("shift+tab from brokers went to %s", m.active)
	}

	m = loaded(t, healthy(), Options{View: ViewGroups}, 100, 30)
	if strings.Contains(tabs(m), "Transactions") {
		t.Fatalf("a transactions tab without KIP-664: %q", tabs(m))
	}
	if m = press(t, m, "tab"); m.active != ViewBrokers {
		t.Fatalf("tab from groups went to %s, want brokers", m.active)
	}
	if m = press(t, m, "5"); m.active != ViewTransactions || !strings.Contains(m.View(), "not supported by this cluster") {
		t.Fatalf("key 5 without KIP-664:\n%s", m.View())
	}
}
