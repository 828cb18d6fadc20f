package admin

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A port in use is reported by Listen, naming admin.listener, so the
// broker can fail before its start-up work.
func TestListenPortInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, err = Listen(taken.Addr().String(), quietLog())
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "admin.listener") {
		t.Fatalf("Listen on a port in use: %v", err)
	}
}

// An endpoint bound but never served (start-up failed later) releases its
// port on Shutdown.
func TestShutdownBeforeServe(t *testing.T) {
	s, err := Listen("127.0.0.1:0", quietLog())
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("%s still bound after Shutdown: %v", addr, err)
	}
	ln.Close()
}
