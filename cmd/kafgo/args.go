package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// withOptionalValues rewrites args so that flags taking an optional value
// read the way Kafka's tools (joptsimple) read them: "--flag word" gives the
// flag that value unless the word looks like an option. pflag only takes
// "--flag=word" and leaves the word as a stray argument, so without this
// "kafgo produce --compression-codec zstd" would fail where
// kafka-console-producer succeeds. Optional-value flags are those with a
// NoOptDefVal; pflag's own booleans are left alone (Kafka's boolean options
// take no value). A flag whose value says it takes the following word (the
// broker's boolean server.properties keys: "--auto.create.topics.enable
// false") takes it too.
func withOptionalValues(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil {
		return args
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if name, ok := strings.CutPrefix(a, "--"); ok && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			if f := cmd.Flags().Lookup(name); f != nil && takesFollowingWord(f) {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// takesFollowingWord reports whether "--flag word" gives f the value word.
func takesFollowingWord(f *pflag.Flag) bool {
	if w, ok := f.Value.(interface{ TakesFollowingWord() bool }); ok {
		return w.TakesFollowingWord()
	}
	return f.NoOptDefVal != "" && f.Value.Type() != "bool"
}
