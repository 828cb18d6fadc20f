package meta_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/broker/meta"
	"kafgo/internal/testing/testcluster"
)

// zkSessionTimeout is what tests ask for; the test server allows 1 s..60 s.
const zkSessionTimeout = 10 * time.Second

func dialZK(t *testing.T, connect string) meta.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := meta.DialZooKeeper(ctx, connect, zkSessionTimeout, quietLogger())
	if err != nil {
		t.Fatalf("DialZooKeeper(%s): %v", connect, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var chrootSeq atomic.Int64

// zkBackend runs every conformance case under its own chroot of one shared
// server, so cases start from an empty tree and the chroot path mapping is
// exercised by every call.
func zkBackend(zk *testcluster.ZooKeeper) func(t *testing.T) backend {
	return func(t *testing.T) backend {
		chroot := "/conformance/case" + time.Now().Format("150405") + "-" + string(rune('a'+chrootSeq.Add(1)%26)) + itoa(chrootSeq.Load())
		return backend{open: func(t *testing.T) meta.Store { return dialZK(t, zk.Connect()+chroot) }}
	}
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestZooKeeperConformance(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	runConformance(t, zkBackend(zk))
}

func TestZooKeeperChroot(t *testing.T) {
	ctx := testCtx(t)
	zk := testcluster.StartZooKeeper(t)
	root := dialZK(t, zk.Connect())
	ok, _, err := root.Exists(ctx, "/kafka")
	must(t, err)
	if ok {
		t.Fatal("/kafka exists on a fresh server")
	}

	s := dialZK(t, zk.Connect()+"/kafka/cluster-a")
	wantData(t, root, "/kafka/cluster-a", "") // created by Dial, as Kafka does
	must(t, meta.EnsurePath(ctx, s, "/brokers/ids"))
	_, err = s.Create(ctx, "/brokers/ids/1", []byte("b1"), meta.Ephemeral)
	must(t, err)
	wantData(t, root, "/kafka/cluster-a/brokers/ids/1", "b1")

	// Returned paths and watch events are relative to the chroot.
	seq, err := s.Create(ctx, "/brokers/n-", nil, meta.PersistentSequential)
	must(t, err)
	if !strings.HasPrefix(seq, "/brokers/n-") {
		t.Fatalf("sequential path %q is not chroot-relative", seq)
	}
	_, _, ch, err := s.ChildrenW(ctx, "/brokers/ids")
	must(t, err)
	_, err = root.Create(ctx, "/kafka/cluster-a/brokers/ids/2", nil, meta.Persistent)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeChildrenChanged, "/brokers/ids")
	res, err := s.Multi(ctx, meta.CreateOp{Path: "/brokers/m-", Mode: meta.PersistentSequential})
	must(t, err)
	if !strings.HasPrefix(res[0].Path, "/brokers/m-") {
		t.Fatalf("multi create path %q is not chroot-relative", res[0].Path)
	}
	kids, _, err := s.Children(ctx, "/")
	must(t, err)
	if strings.Join(kids, ",") != "brokers" {
		t.Fatalf("children of chroot root = %v, want [brokers]", kids)
	}

	// A second dial to an existing chroot is fine.
	dialZK(t, zk.Connect()+"/kafka/cluster-a")

	out := testcluster.ZooKeeperShell(t, zk.Connect(), "ls", "-R", "/kafka")
	for _, want := range []string{"/kafka/cluster-a/brokers/ids/1\n", "/kafka/cluster-a/brokers/ids/2\n", seq[1:]} {
		if !strings.Contains(out, want) {
			t.Fatalf("ls -R /kafka:\n%s\nmissing %q", out, want)
		}
	}
}

func TestZooKeeperShellShowsOurBytes(t *testing.T) {
	ctx := testCtx(t)
	zk := testcluster.StartZooKeeper(t)
	s := dialZK(t, zk.Connect())
	cases := []struct {
		path string
		data string
	}{
		{"/controller", `{"version":1,"brokerid":1,"timestamp":"1609459200000"}`},
		{"/controller_epoch", `7`},
		{"/config", `{"version":2,"entity_path":"brokers/<default>"}`},
		{"/utf8", `{"rack":"zürich-1"}`},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			_, err := s.Create(ctx, tc.path, []byte(tc.data), meta.Persistent)
			must(t, err)
			got := testcluster.ZooKeeperShell(t, zk.Connect(), "get", tc.path)
			if got != tc.data+"\n" {
				t.Fatalf("zkCli.sh get %s = %q, want %q", tc.path, got, tc.data+"\n")
			}
		})
	}
}

func TestZooKeeperSessionExpiryStates(t *testing.T) {
	ctx := testCtx(t)
	zk := testcluster.StartZooKeeper(t)
	s := dialZK(t, zk.Connect())
	states := s.Sessions()
	old := s.SessionID()
	_, err := s.Create(ctx, "/brokers", nil, meta.Persistent)
	must(t, err)
	_, err = s.Create(ctx, "/brokers/1", nil, meta.Ephemeral)
	must(t, err)
	must(t, s.(meta.SessionExpirer).ExpireSession(ctx))

	// The client sees its connection drop, the expiry, then a new session.
	waitStates(t, states, meta.SessionExpired, meta.SessionConnected)
	if id := s.SessionID(); id == old || id == 0 {
		t.Fatalf("session id %x after expiry, was %x", id, old)
	}
	// The server agrees: the old session is gone with its ephemeral.
	wantMissing(t, s, "/brokers/1")
	dump, err := testcluster.FourLetterWord(zk.Connect(), "dump", 5*time.Second)
	must(t, err)
	if strings.Contains(dump, "/brokers/1") {
		t.Fatalf("server still lists the expired session's ephemeral:\n%s", dump)
	}
}

func TestZooKeeperServerRestart(t *testing.T) {
	ctx := testCtx(t)
	zk := testcluster.StartZooKeeper(t)
	s := dialZK(t, zk.Connect())
	states := s.Sessions()
	id := s.SessionID()
	_, err := s.Create(ctx, "/eph", []byte("x"), meta.Ephemeral)
	must(t, err)

	zk.Stop()
	waitStates(t, states, meta.SessionDisconnected)
	// With the server down every call still returns when its context ends.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	start := time.Now()
	_, _, err = s.Get(short, "/eph")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, meta.ErrConnectionLoss) {
		t.Fatalf("Get with server down: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("Get with server down took %v", waited)
	}

	// Back within the session timeout: same session, ephemeral intact.
	zk.Restart()
	t.Cleanup(func() {
		if t.Failed() {
			srvr, err := testcluster.FourLetterWord(zk.Connect(), "cons", 2*time.Second)
			t.Logf("after restart: server running=%v, cons: %q %v", zk.Running(), srvr, err)
		}
	})
	waitStates(t, states, meta.SessionConnected)
	if s.SessionID() != id {
		t.Fatalf("session changed across a quick restart: %x -> %x", id, s.SessionID())
	}
	wantData(t, s, "/eph", "x")
}

func TestZooKeeperDialFails(t *testing.T) {
	// Nothing listens on this port: Dial gives up within its context.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	l.Close()

	cases := []struct {
		name    string
		connect string
		timeout time.Duration
		want    error
	}{
		{"no server", addr, 2 * time.Second, meta.ErrConnectionLoss},
		{"no hosts", "/chroot", time.Second, nil},
		{"bad chroot", addr + "/bad/", time.Second, meta.ErrInvalidPath},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			start := time.Now()
			s, err := meta.DialZooKeeper(ctx, tc.connect, 5*time.Second, quietLogger())
			if err == nil {
				s.Close()
				t.Fatal("Dial succeeded")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Dial error = %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "meta: ") {
				t.Fatalf("error %q lacks the meta: prefix", err)
			}
			if waited := time.Since(start); waited > tc.timeout+5*time.Second {
				t.Fatalf("Dial took %v with a %v context", waited, tc.timeout)
			}
		})
	}
}

// A Dial given up before the first session (the broker interrupted while
// connecting) cuts the connection whose handshake is in flight, rather than
// leave it open until the handshake deadline (here a minute).
func TestZooKeeperDialAbandonedClosesConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if nc, err := l.Accept(); err == nil {
			accepted <- nc
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	dialed := make(chan error, 1)
	go func() {
		s, err := meta.DialZooKeeper(ctx, l.Addr().String(), time.Minute, quietLogger())
		if err == nil {
			s.Close()
		}
		dialed <- err
	}()
	var nc net.Conn
	select {
	case nc = <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("the client never connected")
	}
	defer nc.Close()
	cancel()
	select {
	case err := <-dialed:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Dial error = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Dial did not return after its context ended")
	}
	// The client wrote its ConnectRequest; after it, the connection ends.
	must(t, nc.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = io.Copy(io.Discard, nc)
	if err != nil {
		t.Fatalf("the abandoned connection is still open: %v", err)
	}
}
