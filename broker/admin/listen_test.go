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

// TestIndexListsEndpoints: / answers with the endpoint's paths, each with
// what it serves (pprof's only when it is on), and every path it lists
// answers; other unknown paths stay 404.
func TestIndexListsEndpoints(t *testing.T) {
	for _, pprofOn := range []bool{false, true} {
		s, err := Listen("127.0.0.1:0", quietLog())
		if err != nil {
			t.Fatal(err)
		}
		s.Serve(Source{Pprof: pprofOn})
		base := "http://" + s.Addr().String()
		get := func(path string) (int, string) {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(body)
		}
		code, index := get("/")
		want := []string{"/metrics ", "/v1/metrics ", "/v1/quotas "}
		if pprofOn {
			want = append(want, "/debug/pprof/ ")
		}
		for _, w := range want {
			if code != http.StatusOK || !strings.Contains(index, "\n"+w) {
				t.Errorf("pprof %v: / answers %d without %q:\n%s", pprofOn, code, w, index)
			}
		}
		if !pprofOn && strings.Contains(index, "pprof") {
			t.Errorf("/ lists pprof while it is off:\n%s", index)
		}
		for _, w := range []string{"/metrics", "/v1/metrics", "/v1/quotas"} {
			if code, body := get(w); code != http.StatusOK {
				t.Errorf("%s, listed in /, answers %d: %.100q", w, code, body)
			}
		}
		if code, _ := get("/nothing-here"); code != http.StatusNotFound {
			t.Errorf("/nothing-here answers %d, want 404", code)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		cancel()
	}
}
