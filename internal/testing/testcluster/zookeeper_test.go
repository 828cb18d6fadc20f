package testcluster

import (
	"strings"
	"testing"
	"time"
)

func TestZooKeeperLifecycle(t *testing.T) {
	zk := StartZooKeeper(t)
	if !strings.HasPrefix(zk.Connect(), "127.0.0.1:") {
		t.Fatalf("Connect() = %q, want 127.0.0.1:<port>", zk.Connect())
	}
	out, err := FourLetterWord(zk.Connect(), "ruok", 2*time.Second)
	if err != nil || out != "imok" {
		t.Fatalf("ruok = %q, %v; want imok", out, err)
	}

	const data = `{"version":1,"brokerid":7,"timestamp":"1609459200000"}`
	ZooKeeperShell(t, zk.Connect(), "create", "/probe", data)
	if got := ZooKeeperShell(t, zk.Connect(), "get", "/probe"); got != data+"\n" {
		t.Fatalf("get /probe = %q, want %q", got, data+"\n")
	}
	tree := ZooKeeperShell(t, zk.Connect(), "ls", "-R", "/")
	for _, want := range []string{"/\n", "/probe\n", "/zookeeper\n"} {
		if !strings.Contains(tree, want) {
			t.Fatalf("ls -R / = %q, missing %q", tree, want)
		}
	}
	if _, err := ZooKeeperShellE(zk.Connect(), "get", "/missing"); err == nil || !strings.Contains(err.Error(), "Node does not exist") {
		t.Fatalf("get /missing error = %v, want Node does not exist", err)
	}

	zk.Stop()
	if zk.Running() {
		t.Fatal("Running() after Stop")
	}
	if out, err := FourLetterWord(zk.Connect(), "ruok", 500*time.Millisecond); err == nil && out == "imok" {
		t.Fatal("server still answers after Stop")
	}
	zk.Stop() // idempotent

	zk.Restart()
	if !zk.Running() {
		t.Fatal("not Running() after Restart")
	}
	// The data dir survives a kill -9: the znode is still there.
	if got := ZooKeeperShell(t, zk.Connect(), "get", "/probe"); got != data+"\n" {
		t.Fatalf("after restart get /probe = %q, want %q", got, data+"\n")
	}
}

func TestCleanShellOutput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"banner then data", "Connecting to 127.0.0.1:2181\n\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n{\"a\":1}\n", "{\"a\":1}\n"},
		{"no output", "Connecting to 127.0.0.1:2181\n\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n", ""},
		{"blank lines inside data kept", "Connecting to x\nline1\n\nline3\n", "line1\n\nline3\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanShellOutput(tc.in); got != tc.want {
				t.Fatalf("cleanShellOutput = %q, want %q", got, tc.want)
			}
		})
	}
}
