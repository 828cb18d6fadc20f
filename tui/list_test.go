package tui

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func testRows() ([]column, []row) {
	cols := []column{{title: "NAME"}, {title: "RATE", right: true}}
	return cols, []row{
		{key: "orders", cells: []cell{txt("orders"), number("12", 12)}},
		{key: "Payments", cells: []cell{txt("Payments"), txt("-")}},
		{key: "audit", cells: []cell{txt("audit"), number("3", 3)}},
		{key: "clicks", cells: []cell{txt("clicks"), number("40", 40)}},
	}
}

func TestListFilterAndSort(t *testing.T) {
	cols, rows := testRows()
	cases := []struct {
		name string
		l    listState
		want []string
	}{
		{"natural order", listState{}, []string{"orders", "Payments", "audit", "clicks"}},
		{"reversed", listState{desc: true}, []string{"clicks", "audit", "Payments", "orders"}},
		{"filter ignores case", listState{filter: "PAY"}, []string{"Payments"}},
		{"filter matches any cell", listState{filter: "40"}, []string{"clicks"}},
		{"by name", listState{sortCol: 1}, []string{"Payments", "audit", "clicks", "orders"}},
		// An unknown rate sorts after every known one, in both directions.
		{"by rate", listState{sortCol: 2}, []string{"audit", "orders", "clicks", "Payments"}},
		{"by rate descending", listState{sortCol: 2, desc: true}, []string{"clicks", "orders", "audit", "Payments"}},
		{"filtered and sorted", listState{filter: "s", sortCol: 2, desc: true}, []string{"clicks", "orders", "Payments"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls := c.l.apply(cols, rows)
			if got := ls.keys(); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			if ls.all != len(rows) {
				t.Fatalf("all = %d, want %d", ls.all, len(rows))
			}
		})
	}
}

// TestListKeysSort: s cycles through the columns and back to the natural
// order; S reverses whichever order is on.
func TestListKeysSort(t *testing.T) {
	cols, rows := testRows()
	k := defaultKeys()
	var l listState
	var got []int
	for range 4 {
		l.key(keyMsg("s"), k, l.apply(cols, rows))
		got = append(got, l.sortCol)
	}
	if !slices.Equal(got, []int{1, 2, 0, 1}) {
		t.Fatalf("sort columns %v", got)
	}
	l.key(keyMsg("S"), k, l.apply(cols, rows))
	if !l.desc || !strings.Contains(l.summary(l.apply(cols, rows)), "sorted by name descending") {
		t.Fatalf("after S: %+v %q", l, l.summary(l.apply(cols, rows)))
	}
}

// TestTableDropsColumns: a table too wide leaves out its droppable
// columns, the highest drop first, and keeps a flex column at its keep
// width before narrowing it.
func TestTableDropsColumns(t *testing.T) {
	tb := table{cols: []column{{title: "NAME", flex: true, keep: 10}, {title: "A", drop: 1}, {title: "B", drop: 2}, {title: "C"}},
		rows: [][]cell{{txt("0123456789"), txt("aaaa"), txt("bbbb"), txt("cccc")}}}
	titles := func(width int) string {
		var out []string
		for _, i := range tb.shown(width) {
			out = append(out, tb.cols[i].title)
		}
		return strings.Join(out, ",")
	}
	// gutter 2 + 10 + 3 gaps of 2 + 3 columns of 4 = 30.
	for _, c := range []struct {
		width int
		want  string
	}{{30, "NAME,A,B,C"}, {29, "NAME,A,C"}, {24, "NAME,A,C"}, {23, "NAME,C"}, {10, "NAME,C"}} {
		if got := titles(c.width); got != c.want {
			t.Errorf("width %d: columns %s, want %s", c.width, got, c.want)
		}
	}
}

func TestSparklineAndChart(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		vals  []float64
		width int
		want  string
	}{
		{[]float64{0, 1, 2, 4}, 4, "▁▃▅█"},
		{[]float64{0, 1, 2, 4}, 6, "  ▁▃▅█"}, // right-aligned
		{[]float64{9, 9, 0, 4}, 2, "▁█"},     // the last width values, scaled among themselves
		{[]float64{0, 0, 0}, 3, "▁▁▁"},       // all zero: a floor
		{[]float64{2, nan, 2}, 3, "█ █"},     // unknown: blank
		{[]float64{1, 2}, 0, ""},
	}
	for _, c := range cases {
		if got := sparkline(c.vals, c.width); got != c.want {
			t.Errorf("sparkline(%v, %d) = %q, want %q", c.vals, c.width, got, c.want)
		}
	}
	got := chart([]float64{0, 4, 8, 16}, 5, 2)
	// 16 is two full lines; 8 fills the bottom line; 4 half of it; 0 a floor.
	if got[0] != "    █" || got[1] != " ▁▄██" {
		t.Fatalf("chart = %q", got)
	}
}

func TestSIUnits(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{siCount(0), "0"}, {siCount(12), "12"}, {siCount(0.5), "0.5"}, {siCount(1234), "1.2k"}, {siCount(35_000_000), "35M"},
		{siBytes(512), "512B"}, {siBytes(1536), "1.5KiB"}, {siBytes(3 << 20), "3.0MiB"}, {siBytes(math.NaN()), "-"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestTableNeverCutsANumber: a right-aligned column the frame's edge
// would cut is left out whole (a cut "3.0MiB" reads as "3"), and a text
// column at the edge keeps what fits, ending in "…".
func TestTableNeverCutsANumber(t *testing.T) {
	tb := table{cols: []column{{title: "NAME"}, {title: "STATE"}, {title: "BYTES-LEFT", right: true}},
		rows: [][]cell{{txt("payments"), txt("reassigning"), number("3.0MiB", 3<<20)}}, sel: -1, to: 1}
	// gutter 2 + 8 + 2 + 11 + 2 + 10 = 35.
	for _, c := range []struct {
		width      int
		head, line string
	}{
		{35, "  NAME      STATE        BYTES-LEFT", "  payments  reassigning      3.0MiB"},
		{34, "  NAME      STATE", "  payments  reassigning"},
		{20, "  NAME      STATE", "  payments  reassig…"},
		{15, "  NAME", "  payments"},
	} {
		out := tb.render(newStyles(nil), c.width)
		if out[0] != c.head || out[1] != c.line {
			t.Errorf("width %d:\n%q\n%q\nwant\n%q\n%q", c.width, out[0], out[1], c.head, c.line)
		}
	}
}

// TestFitNeverCutsAFigure: a line cut at the frame's edge loses a figure
// whole, never keeping the first digits of it; words without digits and
// long blobs are cut where the width ends.
func TestFitNeverCutsAFigure(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		want  string
	}{
		{"in 352KiB/s · 908KiB/s out", 19, "in 352KiB/s · …"},
		// A cut line ends in "…", which takes a column of its own.
		{"in 352KiB/s · 908KiB/s out", 22, "in 352KiB/s · …"},
		{"in 352KiB/s · 908KiB/s out", 23, "in 352KiB/s · 908KiB/s…"},
		{"updated 09:30:15 · every 2s", 13, "updated …"},
		{"2 under-replicated · 2 reassigning", 24, "2 under-replicated · 2 …"},
		{"2 under-replicated · 2 reassigning", 25, "2 under-replicated · 2 r…"},
		{"value 0123456789abcdef0123456789abcdef", 20, "value 0123456789abc…"},
		{"12345678", 4, "123…"},
	} {
		if got := fit(c.s, c.width); got != c.want {
			t.Errorf("fit(%q, %d) = %q, want %q", c.s, c.width, got, c.want)
		}
	}
}
