package wire

import (
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
)

// Listen binds without serving: the broker binds first, so a port in use
// fails before its start-up work, and serves once it can answer.
func TestListenBindsBeforeStart(t *testing.T) {
	var served atomic.Int64
	s := NewServer(ServerConfig{Listeners: []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}}, countingEcho(&served))
	t.Cleanup(func() { _ = s.Shutdown(shutdownCtx(t, waitTimeout)) })
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatalf("second Listen: %v", err)
	}
	addr := s.Addr("PLAINTEXT")
	if addr == nil {
		t.Fatal("no address after Listen")
	}
	// The port is taken from here on.
	if ln, err := net.Listen("tcp", addr.String()); err == nil {
		ln.Close()
		t.Fatalf("%s could be bound again after Listen", addr)
	}
	// A client connecting now waits in the backlog and is served after Start.
	nc := dial(t, addr.String())
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	readFrameRaw(t, nc)
	if s.Addr("PLAINTEXT").String() != addr.String() {
		t.Fatalf("Start rebound: %v, was %v", s.Addr("PLAINTEXT"), addr)
	}
	if served.Load() != 1 {
		t.Fatalf("served %d requests, want 1", served.Load())
	}
}

func TestListenPortInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	s := NewServer(ServerConfig{Listeners: []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}, {Name: "INTERNAL", Addr: taken.Addr().String()}}}, HandlerFunc(func(*Request) Pending { return nil }))
	err = s.Listen()
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("Listen: %v, want EADDRINUSE", err)
	}
	if s.Addr("PLAINTEXT") != nil {
		t.Fatal("the other listener was left bound")
	}
}

// A server that was bound but never started releases its ports on Shutdown.
func TestShutdownAfterListenOnly(t *testing.T) {
	s := NewServer(ServerConfig{Listeners: []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}}, HandlerFunc(func(*Request) Pending { return nil }))
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	addr := s.Addr("PLAINTEXT").String()
	if err := s.Shutdown(shutdownCtx(t, waitTimeout)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("%s still bound after Shutdown: %v", addr, err)
	}
	ln.Close()
	if err := s.Start(); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Start after Shutdown: %v, want ErrServerClosed", err)
	}
}
