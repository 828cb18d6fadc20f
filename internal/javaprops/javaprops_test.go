package javaprops

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := "# comment\n! also\nbroker.id=1\n  cluster.id : abc\nkey\\ with\\ space value\nmulti = a\\\n    b\nunicode=\\u00e9\n"
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"broker.id": "1", "cluster.id": "abc", "key with space": "value", "multi": "ab", "unicode": "é"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("parsed %v", got)
	}
	if _, err := Parse(strings.NewReader("bad=\\u12")); err == nil {
		t.Error("malformed \\u escape accepted")
	}
}

// TestSurrogatePairs: a character outside the BMP, which Java's
// Properties.store writes as two \u escapes (UTF-16 surrogates), reads as
// one rune; a lone surrogate (not valid UTF-16) reads as U+FFFD.
func TestSurrogatePairs(t *testing.T) {
	for in, want := range map[string]string{
		`k=\uD83D\uDE00`:       "\U0001F600",
		`k=a\uD83D\uDE00b`:     "a\U0001F600b",
		`k=\ud83d\ude00\u00e9`: "\U0001F600é",
		`k=\uD83Dx`:            "\uFFFDx",
		`k=\uDE00\uD83D`:       "\uFFFD\uFFFD",
		`k=\uD83D\u0041`:       "\uFFFDA",
	} {
		got, err := Parse(strings.NewReader(in + "\n"))
		if err != nil || got["k"] != want {
			t.Errorf("Parse(%s) = %q, %v; want %q", in, got["k"], err, want)
		}
	}
}

// TestEscapeLeadingSpace: a value that starts with spaces keeps them
// through Escape and Parse, as Properties.store escapes the first one.
func TestEscapeLeadingSpace(t *testing.T) {
	if got := Escape("  two"); got != `\  two` {
		t.Errorf("Escape = %q, want %q", got, `\  two`)
	}
	if got := Escape("a b"); got != "a b" {
		t.Errorf("Escape(inner space) = %q", got)
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, v := range []string{"plain", "a=b:c#d!e", "back\\slash", "tab\there", " lead", "   three", "\tlead tab", "end ", "\U0001F600"} {
		got, err := Parse(strings.NewReader("k=" + Escape(v) + "\n"))
		if err != nil || got["k"] != v {
			t.Errorf("round trip of %q: %q %v", v, got["k"], err)
		}
	}
}

func TestList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                    nil,
		" , ,":                nil,
		"a":                   {"a"},
		" host1:9092 ,host2 ": {"host1:9092", "host2"},
		"a,,b, c ,":           {"a", "b", "c"},
	} {
		if got := List(in); !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("List(%q) = %q, want %q", in, got, want)
		}
	}
}

// javaLoadInput exercises every rule of Properties.load at once; want is
// what java.util.Properties.load(InputStream) (OpenJDK 17+) returned for
// these exact bytes, key => value, so the expectations are Java's, not ours.
const javaLoadInput = "# c\n! c2\n  broker.id=1\ncluster.id : abc\nkey\\ with\\ space value\nmulti = a\\\n    b\\\n\n  after=1\nsep1 :=v\nsep2==v\nsep3= :v\nsep4\t\fv\n\fff=1\r\ncr=1\rcr2=2\nlatin=\xc3\xa9\nesc=\\q\\=\\:\\\\\ntrail=x\\\\\ndup=1\ndup=2\n#comment\\\nnotcont=1\nbare\nemptyval=\n  # indented comment\nlast=z\\"

var javaLoadWant = map[string]string{
	"after": "1", "bare": "", "broker.id": "1", "cluster.id": "abc", "cr": "1", "cr2": "2",
	"dup": "2", "emptyval": "", "esc": `q=:\`, "ff": "1", "key with space": "value", "last": "z",
	"latin": "\u00c3\u00a9", "multi": "ab", "notcont": "1", "sep1": "=v", "sep2": "=v",
	"sep3": ":v", "sep4": "v", "trail": `x\`,
}

func TestEntriesMatchJavaLoad(t *testing.T) {
	entries, err := Entries(DecodeLatin1([]byte(javaLoadInput)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Key] = e.Value
	}
	for k, v := range javaLoadWant {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(javaLoadWant) {
		t.Errorf("got %d keys, want %d: %q", len(got), len(javaLoadWant), got)
	}
}

// TestEntriesLines: each entry carries the line its logical line starts
// on, and a repeated key is kept twice, in order, so a loader can report it.
func TestEntriesLines(t *testing.T) {
	in := "# header\n\na=1\nb = x\\\n  y\r\nc=3\ra=4\n"
	got, err := Entries(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{"a", "1", 3}, {"b", "xy", 4}, {"c", "3", 6}, {"a", "4", 7}}
	if !slices.Equal(got, want) {
		t.Errorf("Entries = %v, want %v", got, want)
	}
	if _, err := Entries("ok=1\n\nbad=\\u12G4\n"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("malformed escape: %v, want an error naming line 3", err)
	}
}

func TestDecodeLatin1(t *testing.T) {
	if got := DecodeLatin1([]byte("plain")); got != "plain" {
		t.Errorf("ascii: %q", got)
	}
	if got := DecodeLatin1([]byte{'a', 0xe9, 0xff}); got != "a\u00e9\u00ff" {
		t.Errorf("latin-1: %q", got)
	}
}
