package wire

import (
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// idleCost dials n connections to addr, waits until accepted(n) holds, and
// returns the heap+stack growth and goroutine growth, plus the connections.
func idleCost(t *testing.T, addr string, n int, accepted func() bool) (mem int64, goroutines int, conns []net.Conn) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	conns = make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	deadline := time.Now().Add(waitTimeout)
	for len(conns) < n && time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, waitTimeout)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	testwait.Until(t, waitTimeout, "all connections accepted", accepted)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse), runtime.NumGoroutine() - g0, conns
}

// TestManyIdleConnections opens 2000 idle connections and measures what wire
// adds to bare sockets: one parked goroutine each (the writer exists only
// while responses are outstanding) and a few KiB.
func TestManyIdleConnections(t *testing.T) {
	const n = 2000

	// Baseline: the same sockets, accepted and held without any goroutine.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	baseMem, _, baseConns := idleCost(t, ln.Addr().String(), n, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(held) == n
	})
	_ = ln.Close()
	for _, c := range baseConns {
		_ = c.Close()
	}
	mu.Lock()
	for _, c := range held {
		_ = c.Close()
	}
	held = nil
	mu.Unlock()

	s, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(*Request) Pending { return Ready(&Response{Body: []byte{0}}) }))
	mem, goroutines, conns := idleCost(t, addr, n, func() bool { return s.Stats().OpenConns == n })
	perConn := (mem - baseMem) / n
	t.Logf("%d idle connections: %d goroutines; heap+stack %d KiB (bare sockets %d KiB): wire adds %d bytes per connection",
		n, goroutines, mem>>10, baseMem>>10, perConn)
	if goroutines > n+20 {
		t.Errorf("%d goroutines for %d idle connections, want about one each", goroutines, n)
	}
	if perConn > 12<<10 {
		t.Errorf("wire adds %d bytes per idle connection", perConn)
	}

	// They still work: a request on a few of them is answered.
	for _, c := range []net.Conn{conns[0], conns[n/2], conns[n-1]} {
		writeAll(t, c, encodeRequest(metadataRequest(1), 3, kmsg.StringPtr("late")))
		if corrOf(readFrameRaw(t, c)) != 3 {
			t.Fatal("idle connection answered wrongly")
		}
	}
}
