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
