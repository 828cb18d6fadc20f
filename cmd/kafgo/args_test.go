package main

import (
	"slices"
	"testing"
)

func TestWithOptionalValuesReadsLikeJoptsimple(t *testing.T) {
	root := newRootCommand()
	for _, c := range []struct{ in, want []string }{
		// A following word is the optional flag's value.
		{[]string{"produce", "--topic", "t", "--compression-codec", "zstd"}, []string{"produce", "--topic", "t", "--compression-codec=zstd"}},
		{[]string{"groups", "--list", "--state", "Stable,Empty"}, []string{"groups", "--list", "--state=Stable,Empty"}},
		{[]string{"dump-log-segments", "--key-decoder-class", "kafka.serializer.StringDecoder", "--files", "a.log"},
			[]string{"dump-log-segments", "--key-decoder-class=kafka.serializer.StringDecoder", "--files", "a.log"}},
		// Followed by an option, or last, it stays bare; given with = it is untouched.
		{[]string{"produce", "--compression-codec", "--sync"}, []string{"produce", "--compression-codec", "--sync"}},
		{[]string{"groups", "--describe", "--group", "g", "--state"}, []string{"groups", "--describe", "--group", "g", "--state"}},
		{[]string{"produce", "--compression-codec=lz4", "x"}, []string{"produce", "--compression-codec=lz4", "x"}},
		// Flags that need a value, pflag booleans, and words after "--" are not touched.
		{[]string{"produce", "--topic", "t", "--sync", "extra"}, []string{"produce", "--topic", "t", "--sync", "extra"}},
		{[]string{"groups", "--", "--state", "x"}, []string{"groups", "--", "--state", "x"}},
		// An unknown command is left for cobra to report.
		{[]string{"nope", "--state", "x"}, []string{"nope", "--state", "x"}},
	} {
		if got := withOptionalValues(root, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
