package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kafgo/internal/testing/clitest"
)

// TestHelpGolden pins the help of the client tools (go test -update
// rewrites it): a contradiction between a flag's text and its default, or
// pflag's rendering of an optional value, shows up in review as a diff.
func TestHelpGolden(t *testing.T) {
	for _, args := range [][]string{
		{}, {"topics"}, {"groups"}, {"configs"}, {"reassign-partitions"}, {"produce"}, {"consume"},
		{"perf", "produce"}, {"perf", "consume"}, {"tui"}, {"version"}, {"acls"},
		{"leader-election"}, {"delete-records"}, {"get-offsets"}, {"broker-api-versions"}, {"replica-verification"},
		{"e2e-latency"}, {"verifiable-producer"}, {"verifiable-consumer"}, {"cluster"}, {"cluster", "cluster-id"},
		{"cluster", "unregister"}, {"zookeeper-shell"}, {"rebalance"},
	} {
		name := strings.Join(append([]string{"kafgo"}, args...), "-")
		t.Run(name, func(t *testing.T) {
			out, _, err := execute(t, "", append(args, "--help")...)
			if err != nil {
				t.Fatal(err)
			}
			clitest.Golden(t, "help/"+name+".golden", []byte(out))
		})
	}
}

// eachCommand calls fn for every command of the tree.
func eachCommand(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		eachCommand(sub, fn)
	}
}

// TestFlagUsagesReadLikeKafka checks every command's flag table, the
// broker's included: an optional value reads "--state [string]" as
// joptsimple's "[String]" does, not pflag's --state string[="..."], and a
// flag taking no value shows none (a back-quoted word in a boolean's text
// made pflag print "--all-topics reset-offsets").
func TestFlagUsagesReadLikeKafka(t *testing.T) {
	root := newRootCommand()
	eachCommand(root, func(c *cobra.Command) {
		usage := c.UsageString()
		if strings.Contains(usage, `[="`) || strings.Contains(usage, "[=") {
			t.Errorf("%s: pflag's optional-value rendering in\n%s", c.CommandPath(), usage)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "bool" {
				return
			}
			if name, _ := pflag.UnquoteUsage(f); name != "" {
				t.Errorf("%s --%s takes no value but its help shows %q", c.CommandPath(), f.Name, name)
			}
		})
	})
	out, _, err := execute(t, "", "groups", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"      --state [string]  ", "      --all-topics      "} {
		if !strings.Contains(out, want) {
			t.Errorf("groups --help lacks %q:\n%s", want, out)
		}
	}
}

// TestFlagValueErrors: a bad number reads as an operator's error, not Go's
// strconv text.
func TestFlagValueErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topics", "--create", "--topic", "t", "--partitions", "abc"}, `invalid value "abc" for --partitions: not an integer`},
		{[]string{"topics", "--create", "--topic", "t", "--partitions", "99999999999"}, `invalid value "99999999999" for --partitions: out of range for a 32-bit integer`},
		{[]string{"groups", "--reset-offsets", "--shift-by", "-x"}, `invalid value "-x" for --shift-by: not an integer`},
		{[]string{"consume", "--topic", "t", "--max-messages", "ten"}, `invalid value "ten" for --max-messages: not an integer`},
		{[]string{"perf", "produce", "--throughput", "fast"}, `invalid value "fast" for --throughput: not a number`},
		{[]string{"tui", "--refresh", "5"}, `invalid value "5" for --refresh: not a duration (such as 500ms, 2s or 1m)`},
		{[]string{"tui", "--once=maybe"}, `invalid value "maybe" for --once: not true or false`},
		{[]string{"reassign-partitions", "--throttle", "1e6"}, `invalid value "1e6" for --throttle: not an integer`},
		{[]string{"dump-log-segments", "--max-bytes", "1k"}, `invalid value "1k" for --max-bytes: not an integer`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := execute(t, "", c.args...)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
