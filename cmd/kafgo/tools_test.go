package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"kafgo/internal/testing/clitest"
)

// execute runs the root command with args and stdin, as main does.
func execute(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(withOptionalValues(root, args))
	err := root.Execute()
	return out.String(), errOut.String(), err
}

func TestToolCommandsEndToEnd(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1))
	bs := "--bootstrap-server=" + addrs
	steps := []struct {
		name   string
		stdin  string
		args   []string
		out    string // exact stdout, unless prefix is set
		prefix bool
		err    string
	}{
		{name: "create", args: []string{"topics", bs, "--create", "--topic", "cmd", "--partitions", "2", "--replication-factor", "1", "--config", "retention.ms=1000"}, out: "Created topic cmd.\n"},
		{name: "list", args: []string{"topics", bs, "--list"}, out: "cmd\n"},
		{name: "describe", args: []string{"topics", bs, "--describe", "--topic", "cmd"}, out: "Topic: cmd\tTopicId: ", prefix: true},
		{name: "produce", stdin: "k1:v1\nk2:v2\n", args: []string{"produce", bs, "--topic", "cmd", "--property", "parse.key=true", "--property", "key.separator=:", "--compression-codec", "--sync"}},
		{name: "consume", args: []string{"consume", bs, "--topic", "cmd", "--from-beginning", "--max-messages", "2", "--group", "cg", "--property", "print.key=true", "--property", "key.separator=="}},
		{name: "groups list", args: []string{"groups", bs, "--list"}, out: "cg\n"},
		{name: "groups state", args: []string{"groups", bs, "--list", "--state", "empty"}, out: "GROUP           STATE\ncg              Empty\n"},
		{name: "reset", args: []string{"groups", bs, "--reset-offsets", "--group", "cg", "--topic", "cmd", "--to-earliest", "--execute"}, out: "\nGROUP                          TOPIC", prefix: true},
		{name: "perf produce", args: []string{"perf", "produce", "--topic", "cmd", "--num-records", "20", "--record-size", "10", "--throughput", "-1", "--producer-props", "bootstrap.servers=" + addrs, "acks=1"}, out: "20 records sent, ", prefix: true},
		{name: "perf consume", args: []string{"perf", "consume", bs, "--topic", "cmd", "--messages", "22", "--format", "json"}, out: `{"start_time":`, prefix: true},
		// Kafka's optional-value form: the codec as the next word.
		{name: "create codec", args: []string{"topics", bs, "--create", "--topic", "codec", "--partitions", "1", "--replication-factor", "1"}, out: "Created topic codec.\n"},
		{name: "produce codec word", stdin: "k3:v3\n", args: []string{"produce", bs, "--topic", "codec", "--property", "parse.key=true", "--property", "key.separator=:", "--compression-codec", "lz4", "--sync"}},
		{name: "consume codec", args: []string{"consume", bs, "--topic", "codec", "--from-beginning", "--max-messages", "1", "--property", "print.key=true", "--property", "key.separator=="}, out: "k3=v3\n"},
		{name: "topics no bootstrap", args: []string{"topics", "--list"}, err: "--bootstrap-server must be specified"},
		{name: "topics two actions", args: []string{"topics", bs, "--list", "--delete"}, err: "Command must include exactly one action: --list, --describe, --create, --alter or --delete"},
		{name: "topics command error", args: []string{"topics", bs, "--describe", "--topic", "nope"}, out: "Error while executing topic command : Topic 'nope' does not exist as expected\n", err: "Topic 'nope' does not exist as expected"},
		{name: "perf no config", args: []string{"perf", "produce", "--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-1"}, err: "Either --producer-props or --producer.config must be specified."},
		{name: "groups stray arg", args: []string{"groups", bs, "--list", "extra"}, err: `unexpected argument "extra"`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			done := make(chan struct{})
			var out, stderr string
			var err error
			go func() {
				defer close(done)
				out, stderr, err = execute(t, s.stdin, s.args...)
			}()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("command did not finish")
			}
			if s.err == "" && err != nil || s.err != "" && (err == nil || err.Error() != s.err) {
				t.Fatalf("error %v, want %q (stderr %q)", err, s.err, stderr)
			}
			if s.name == "consume" {
				if out != "k1=v1\nk2=v2\n" || stderr != "Processed a total of 2 messages\n" {
					t.Fatalf("out %q stderr %q", out, stderr)
				}
				return
			}
			if s.prefix && !strings.HasPrefix(out, s.out) || !s.prefix && out != s.out {
				t.Fatalf("stdout %q, want %q (stderr %q)", out, s.out, stderr)
			}
		})
	}
}
