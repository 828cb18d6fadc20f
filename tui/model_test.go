package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

func TestParsePosition(t *testing.T) {
	now := time.Date(2024, 5, 17, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want Position
	}{
		{"1234", Position{Kind: AtOffset, Offset: 1234}},
		{"-50", Position{Kind: AtLatest, N: 50}},
		{"earliest", Position{Kind: AtEarliest}},
		{"latest", Position{Kind: AtLatest, N: pageRecords}},
		{"@1715938200000", Position{Kind: AtTime, Millis: 1715938200000}},
		{"-5m", Position{Kind: AtTime, Millis: now.Add(-5 * time.Minute).UnixMilli()}},
		{"2024-05-17T09:00:00Z", Position{Kind: AtTime, Millis: now.Add(-30 * time.Minute).UnixMilli()}},
		{"2024-05-17 09:00:00", Position{Kind: AtTime, Millis: now.Add(-30 * time.Minute).UnixMilli()}},
	}
	for _, c := range cases {
		got, err := parsePosition(c.in, now)
		if err != nil || got != c.want {
			t.Errorf("parsePosition(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "soon", "@x", "-5 parsecs"} {
		if _, err := parsePosition(bad, now); err == nil {
			t.Errorf("parsePosition(%q) accepted", bad)
		}
	}
	// A position resolves inside the log.
	for _, c := range []struct {
		pos  Position
		want int64
	}{
		{Position{Kind: AtOffset, Offset: 5}, 10}, {Position{Kind: AtOffset, Offset: 500}, 100},
		{Position{Kind: AtLatest, N: 30}, 70}, {Position{Kind: AtLatest, N: 300}, 10},
		{Position{Kind: AtEarliest}, 10}, {Position{Kind: AtTime}, 42},
	} {
		if got := resolve(c.pos, 10, 100, 42); got != c.want {
			t.Errorf("resolve(%+v) = %d, want %d", c.pos, got, c.want)
		}
	}
}

// TestDecode: text escapes what would reach the terminal as control
// sequences; JSON is compact in a row and indented in full; hex is
// hexdump -C's layout.
func TestDecode(t *testing.T) {
	if got := escapeText([]byte("a\x1b[31mb\nc\xff\u200b")); got != `a\x1b[31mb\nc\xff\u200b` {
		t.Errorf("escapeText = %q", got)
	}
	js := []byte(`{ "a": [1, 2],  "b": "x" }`)
	if got := oneLine(js, len(js), decodeJSON); got != `{"a":[1,2],"b":"x"}` {
		t.Errorf("JSON row %q", got)
	}
	if got := detailLines(js, len(js), decodeJSON, 80); !slices.Equal(got, []string{"{", `  "a": [`, "    1,", "    2", "  ],", `  "b": "x"`, "}"}) {
		t.Errorf("JSON detail %q", got)
	}
	if got := oneLine([]byte("not json"), 8, decodeJSON); got != "not json" {
		t.Errorf("non-JSON in JSON mode: %q", got)
	}
	if got := oneLine([]byte("hi"), 5000, decodeHex); got != "6869…" {
		t.Errorf("cut hex row %q", got)
	}
	if got := oneLine(nil, -1, decodeText); got != "null" {
		t.Errorf("null: %q", got)
	}
	dump := hexDump([]byte("0123456789abcdefXY"))
	if len(dump) != 2 || dump[0] != "00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|" ||
		!strings.HasPrefix(dump[1], "00000010  58 59 ") || !strings.HasSuffix(dump[1], "|XY|") {
		t.Errorf("hexDump:\n%s", strings.Join(dump, "\n"))
	}
	if got := detailLines([]byte("abc"), 10, decodeText, 80); got[len(got)-1] != "… 3 of 10 bytes shown" {
		t.Errorf("cut value: %q", got)
	}
}

// TestWarnLog: a snapshot's warning repeated is one line with first and
// last times; one no longer reported is kept, no longer current; the log
// is bounded.
func TestWarnLog(t *testing.T) {
	var w warnLog
	t0 := fixedTime
	w.observe(t0, []string{"a", "b"})
	w.observe(t0.Add(time.Second), []string{"a"})
	w.add(t0.Add(2*time.Second), "event")
	if len(w.items) != 3 || w.activeCount() != 2 {
		t.Fatalf("items %+v", w.items)
	}
	a := w.items[0]
	if a.text != "a" || !a.active || a.count != 2 || !a.last.Equal(t0.Add(time.Second)) || w.items[1].active {
		t.Fatalf("items %+v", w.items)
	}
	w.observe(t0.Add(3*time.Second), nil)
	if w.activeCount() != 0 {
		t.Fatalf("still active: %+v", w.items)
	}
	w.add(t0.Add(4*time.Second), "refresh: timeout")
	w.add(t0.Add(5*time.Second), "refresh: timeout")
	if n := len(w.items); n != 4 || w.items[3].count != 2 || !w.items[3].last.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("a repeated event: %+v", w.items[3:])
	}
	for i := range maxWarnings + 10 {
		w.add(t0, strings.Repeat("x", i))
	}
	if len(w.items) != maxWarnings {
		t.Fatalf("%d items kept", len(w.items))
	}
}

// TestProbes: a broker that stops answering is unreachable from that
// probe round on, in the brokers view, the header and the warnings; when
// it answers again, an event says so.
func TestProbes(t *testing.T) {
	m := loaded(t, healthy(), Options{View: ViewBrokers}, 100, 30)
	down := fixedTime.Add(time.Second)
	m, _ = update(t, m, probeMsg{at: down, results: map[int32]error{1: nil, 2: nil, 3: errors.New("connect: connection refused")}})
	f := m.View()
	for _, want := range []string{"3 brokers (1 unreachable)", "unreachable        2", "1 warning (w)"} {
		if !strings.Contains(f, want) {
			t.Fatalf("frame lacks %q:\n%s", want, f)
		}
	}
	if p := m.probes[3]; !p.Since.Equal(down) {
		t.Fatalf("since %v", p.Since)
	}
	// Still down a round later: since stays.
	m, _ = update(t, m, probeMsg{at: down.Add(2 * time.Second), results: map[int32]error{3: errors.New("connect: connection refused")}})
	if p := m.probes[3]; !p.Since.Equal(down) {
		t.Fatalf("since moved to %v", p.Since)
	}
	m, _ = update(t, m, probeMsg{at: down.Add(4 * time.Second), results: map[int32]error{3: nil}})
	if strings.Contains(m.View(), "unreachable") {
		t.Fatalf("still unreachable:\n%s", m.View())
	}
	var texts []string
	for _, w := range m.warns.items {
		texts = append(texts, w.text)
	}
	if !slices.Contains(texts, "broker 3 answers again") || !slices.Contains(texts, "broker 3 unreachable: connect: connection refused") {
		t.Fatalf("warnings %q", texts)
	}
}

// TestNavigation: enter drills down and esc comes back, a filter first;
// switching tabs leaves the pages; h and l switch tabs too.
func TestNavigation(t *testing.T) {
	m := loaded(t, healthy(), Options{View: ViewBrokers}, 100, 30)
	m = press(t, m, "enter", "enter")
	if len(m.stack) != 2 || m.stack[1].p.crumb() != "Topic orders" {
		t.Fatalf("stack %d", len(m.stack))
	}
	m = press(t, m, "/", "x", "enter")
	if l := m.top().filterable(m.env()); l == nil || l.filter != "x" {
		t.Fatal("no filter")
	}
	m = press(t, m, "esc")
	if len(m.stack) != 2 || m.top().filterable(m.env()).filter != "" {
		t.Fatalf("esc did not clear the filter first (stack %d)", len(m.stack))
	}
	m = press(t, m, "backspace")
	if len(m.stack) != 1 {
		t.Fatalf("backspace did not go back: stack %d", len(m.stack))
	}
	m = press(t, m, "l")
	if len(m.stack) != 0 || m.active != ViewTopics {
		t.Fatalf("l: stack %d, active %s", len(m.stack), m.active)
	}
	m = press(t, m, "h")
	if m.active != ViewBrokers {
		t.Fatalf("h: active %s", m.active)
	}
	// Enter on a topic shows its partitions; esc comes back to it.
	m = press(t, m, "2", "j", "enter")
	if m.active != ViewPartitions || m.parts.topic != "payments" {
		t.Fatalf("enter on payments: %s %s", m.active, m.parts.topic)
	}
	m = press(t, m, "esc")
	if m.active != ViewTopics || m.topics.selected(m.env()) != "payments" {
		t.Fatalf("esc: %s %s", m.active, m.topics.selected(m.env()))
	}
}

// TestBrowserBounded: following a busy partition keeps at most
// maxBrowserRecords, the newest, and leaving the page closes the tail.
func TestBrowserBounded(t *testing.T) {
	f := newFake(fakeStep{snap: healthy()})
	for b := range 8 {
		var batch []Record
		for i := range 100 {
			off := int64(1200 + b*100 + i)
			batch = append(batch, Record{Offset: off, Value: []byte("v"), ValueSize: 1})
		}
		f.tailBatches = append(f.tailBatches, batch)
	}
	m := loadedWith(t, f, []*Snapshot{healthy()}, Options{View: ViewTopics}, 100, 30)
	m = press(t, m, "m")
	var cmd tea.Cmd
	m, cmd = update(t, m, keyMsg("f"))
	m = feed(t, m, cmd, 12)
	bp := m.top().(*browserPage)
	if n := len(bp.records); n != maxBrowserRecords || bp.records[n-1].Offset != 1999 || !bp.follow {
		t.Fatalf("%d records, last %d, following %v", n, bp.records[len(bp.records)-1].Offset, bp.follow)
	}
	if f.follows[0] != "orders-0@1200" {
		t.Fatalf("followed from %v", f.follows)
	}
	m = press(t, m, "esc")
	if len(f.tails) != 1 || !f.tails[0].closed {
		t.Fatal("the tail was left open")
	}
	// A tail that opens after its page was left is closed at once.
	late := &fakeTail{src: f}
	m, _ = update(t, m, tailOpenedMsg{id: bp.id, tail: late})
	if !late.closed {
		t.Fatal("a late tail was left open")
	}
}

// TestProbeLoop: the first snapshot starts the probe loop; a round is
// followed by the next after the refresh interval, or by none when
// refreshing is manual (r probes then).
func TestProbeLoop(t *testing.T) {
	for _, refresh := range []time.Duration{0, time.Hour} {
		f := newFake(fakeStep{snap: healthy()})
		m := New(f, Options{Refresh: refresh})
		if m.probeStarted {
			t.Fatal("probing before a snapshot")
		}
		m, _ = update(t, m, snapshotMsg{snap: healthy()})
		if !m.probeStarted {
			t.Fatalf("refresh %s: no probe loop after the first snapshot", refresh)
		}
		// The loop's first tick is immediate: take it.
		m, cmd := update(t, m, probeTickMsg{gen: m.probeGen})
		if !m.probing || cmd == nil {
			t.Fatalf("refresh %s: the tick did not probe", refresh)
		}
		msg, ok := cmd().(probeMsg)
		if !ok || len(msg.results) != 3 {
			t.Fatalf("refresh %s: probe gave %+v", refresh, msg)
		}
		// After a round the next is a timer (not run here), or nothing.
		m, cmd = update(t, m, msg)
		if m.probing || (refresh == 0) != (cmd == nil) {
			t.Fatalf("refresh %s: after a round, probing %v, next %v", refresh, m.probing, cmd != nil)
		}
		if refresh == 0 {
			_, cmd = update(t, m, keyMsg("r"))
			probed := false
			for _, msg := range run(cmd) {
				_, ok := msg.(probeMsg)
				probed = probed || ok
			}
			if !probed {
				t.Fatal("r did not probe")
			}
		}
	}
}

// TestBrowserReloadKeepsPlace: r reads the records again and the
// selection stays on the record it was on.
func TestBrowserReloadKeepsPlace(t *testing.T) {
	f := newFake(fakeStep{snap: healthy()})
	m := loadedWith(t, f, []*Snapshot{healthy()}, Options{View: ViewTopics}, 100, 30)
	m = press(t, m, "m", "k", "k", "k")
	sel := func() int64 {
		r, _ := m.top().(*browserPage).selected()
		return r.Offset
	}
	if sel() != 1196 {
		t.Fatalf("selected %d", sel())
	}
	m = press(t, m, "r")
	if bp := m.top().(*browserPage); sel() != 1196 || len(bp.records) != 100 || bp.loading != "" {
		t.Fatalf("after r: selected %d of %d records", sel(), len(bp.records))
	}
}
