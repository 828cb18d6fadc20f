package zkshell

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/meta"
	"kafgo/internal/testing/clitest"
)

// The goldens under testdata are ZooKeeper 3.8's own output (zkCli.sh run
// against a ZooKeeper server: stat.golden is `set -s /a z`'s stat) and
// Kafka's usage text for the commands kafgo offers, not kafgo's output.
func TestStatGolden(t *testing.T) {
	s := &Shell{Loc: time.UTC}
	st := meta.Stat{Czxid: 2, Ctime: time.Date(2026, 12, 4, 17, 5, 37, 0, time.UTC).UnixMilli(), Mzxid: 0x2e,
		Mtime: time.Date(2026, 12, 4, 17, 6, 28, 0, time.UTC).UnixMilli(), Pzxid: 0xd, Cversion: 3, Version: 2, DataLength: 1, NumChildren: 1}
	clitest.Golden(t, "stat.golden", []byte(s.formatStat(st)))
	clitest.Golden(t, "usage.golden", []byte(Usage()))
}

func newShell(t *testing.T) (*Shell, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	store, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var out, errOut bytes.Buffer
	return NewShell(store, &out, &errOut), &out, &errOut
}

func TestCommands(t *testing.T) {
	s, out, errOut := newShell(t)
	ctx := clitest.Context(t, 20*time.Second)
	run := func(line string) error {
		out.Reset()
		errOut.Reset()
		return s.Exec(ctx, splitCommand(line))
	}
	// Read-only by default.
	if err := run("create /a hello"); err == nil || !strings.Contains(errOut.String(), "read-only unless --allow-writes") {
		t.Fatalf("write allowed: %v %q", err, errOut.String())
	}
	s.AllowWrites = true
	for _, c := range []struct{ line, out, err string }{
		{"create /a hello", "", "Created /a\n"},
		{"create /a/b", "", "Created /a/b\n"},
		{"create /a/c 'two words'", "", "Created /a/c\n"},
		{"ls /a", "[b, c]\n", ""},
		{"ls -R /a", "/a\n/a/b\n/a/c\n", ""},
		{"get /a", "hello\n", ""},
		{"get /a/b", "null\n", ""},
		{"get /a/c", "two words\n", ""},
		{"getAllChildrenNumber /a", "2\n", ""},
		{"create -s /a/seq- x", "", "Created /a/seq-0000000002\n"},
	} {
		if err := run(c.line); err != nil || out.String() != c.out || errOut.String() != c.err {
			t.Errorf("%s: %v out %q err %q, want %q %q", c.line, err, out.String(), errOut.String(), c.out, c.err)
		}
	}
	for _, c := range []struct {
		line, err string
		code      int
	}{
		{"get /nope", "Node does not exist: /nope\n", 1},
		{"create /a x", "Node already exists: /a\n", 1},
		{"delete /a", "Node not empty: /a\n", 1},
		{"set -v 7 /a y", "version No is not valid : /a\n", 1},
		{"ls", "ls [-s] [-w] [-R] path\n", 1},
		{"get -x /a", "org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: -x\n", 1},
		{"get a", "Path must start with / character\n", 1},
		{"foo /a", Usage() + "Command not found: Command not found foo\n", 127},
	} {
		err := run(c.line)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != c.code || errOut.String() != c.err || out.Len() != 0 {
			t.Errorf("%s: %v out %q err %q, want %q (exit %d)", c.line, err, out.String(), errOut.String(), c.err, c.code)
		}
	}
	if err := run("deleteall /a"); err != nil {
		t.Fatal(err)
	}
	if err := run("ls /"); err != nil || out.String() != "[]\n" {
		t.Fatalf("after deleteall: %v %q", err, out.String())
	}
}

func TestInteractive(t *testing.T) {
	s, out, _ := newShell(t)
	s.AllowWrites = true
	in := strings.NewReader("create /x 1\nget /x\nquit\nget /x\n")
	if err := s.Interactive(context.Background(), in, "127.0.0.1:2181"); err != nil {
		t.Fatal(err)
	}
	want := "[zk: 127.0.0.1:2181(CONNECTED) 0] [zk: 127.0.0.1:2181(CONNECTED) 1] 1\n[zk: 127.0.0.1:2181(CONNECTED) 2] "
	if out.String() != want {
		t.Fatalf("%q\nwant %q", out.String(), want)
	}
}

func TestSplitCommand(t *testing.T) {
	got := splitCommand(`create  /a "x y" 'z'`)
	if strings.Join(got, "|") != "create|/a|x y|z" {
		t.Fatal(got)
	}
}
