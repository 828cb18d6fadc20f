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

func TestEscapeRoundTrip(t *testing.T) {
	for _, v := range []string{"plain", "a=b:c#d!e", "back\\slash", "tab\there"} {
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
