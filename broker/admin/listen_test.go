package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
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

// /debug/pprof is served only with admin.pprof.enable.
func TestPprofOnlyWhenEnabled(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		s, err := Listen("127.0.0.1:0", quietLog())
		if err != nil {
			t.Fatal(err)
		}
		s.Serve(Source{Pprof: enabled})
		resp, err := http.Get("http://" + s.Addr().String() + "/debug/pprof/heap?debug=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := http.StatusNotFound
		if enabled {
			want = http.StatusOK
		}
		if resp.StatusCode != want || (enabled && !strings.Contains(string(body), "heap profile")) {
			t.Errorf("pprof enabled=%v: status %d, want %d; body %.100q", enabled, resp.StatusCode, want, body)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		cancel()
	}
}
