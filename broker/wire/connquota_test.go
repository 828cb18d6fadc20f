package wire

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"
)

// served sends one request on nc and reports whether an answer came back
// within d.
func served(t *testing.T, nc net.Conn, corr int32, d time.Duration) bool {
	t.Helper()
	writeAll(t, nc, encodeRequest(metadataRequest(1), corr, nil))
	_ = nc.SetReadDeadline(time.Now().Add(d))
	var b [4]byte
	_, err := nc.Read(b[:])
	return err == nil
}

func answerAll(t *testing.T) Handler { return kmsgHandler(t, echoResponse) }

// TestMaxConnectionsPerIPClosesAtOnce: max.connections.per.ip 2 lets two
// connections from 127.0.0.1 in; the third is accepted and closed at once
// (Kafka's TooManyConnectionsException), and counted; an override for the
// address raises its limit.
func TestMaxConnectionsPerIPClosesAtOnce(t *testing.T) {
	s, addr, logs := startServer(t, ServerConfig{Limits: ConnLimits{PerIP: 2}}, answerAll(t))
	a, b := dial(t, addr), dial(t, addr)
	if !served(t, a, 1, waitTimeout) || !served(t, b, 1, waitTimeout) {
		t.Fatal("the first two connections were not served")
	}
	c := dial(t, addr)
	expectClosed(t, c)
	if got := s.ListenerStats()[0].RejectedPerIP; got != 1 {
		t.Fatalf("RejectedPerIP %d, want 1", got)
	}
	if !contains(logs.String(), "Rejected connection from 127.0.0.1, address already has the configured maximum of 2 connections.") {
		t.Fatalf("no rejection logged:\n%s", logs.String())
	}
	s.SetConnLimits(ConnLimits{PerIP: 2, PerIPOverrides: map[netip.Addr]int{netip.MustParseAddr("127.0.0.1"): 3}})
	if d := dial(t, addr); !served(t, d, 1, waitTimeout) {
		t.Fatal("the override did not admit a third connection")
	}
}

// TestListenerMaxConnectionsHoldsTheNextOne: at listener.name.<l>.max.connections
// the next connection is accepted but not served until one closes (the
// acceptor blocks), and the wait is counted.
func TestListenerMaxConnectionsHoldsTheNextOne(t *testing.T) {
	s, addr, _ := startServer(t, ServerConfig{Limits: ConnLimits{Listener: map[string]int{"PLAINTEXT": 2}}}, answerAll(t))
	a, b := dial(t, addr), dial(t, addr)
	if !served(t, a, 1, waitTimeout) || !served(t, b, 1, waitTimeout) {
		t.Fatal("the first two connections were not served")
	}
	c := dial(t, addr)
	if served(t, c, 1, 300*time.Millisecond) {
		t.Fatal("a third connection was served beyond the listener's limit")
	}
	_ = a.Close()
	// The held connection is served now; its request is still there.
	_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
	if frame := readFrameRaw(t, c); corrOf(frame) != 1 {
		t.Fatalf("held connection answered correlation %d", corrOf(frame))
	}
	testwait.Until(t, waitTimeout, "the wait counted", func() bool { return s.ListenerStats()[0].AcceptBlocked > 0 })
}

// TestProtectedListenerPushesOthersOut: with max.connections 2 and two
// listeners, the inter-broker (protected) listener still accepts when the
// broker is full, and the least recently active client connection is
// closed to make room (Kafka's closeExcessConnections); lowering the
// limit while serving closes the excess too.
func TestProtectedListenerPushesOthersOut(t *testing.T) {
	s, addr, _ := startServer(t, ServerConfig{
		Listeners: []ListenerConfig{{Name: "CLIENT", Addr: "127.0.0.1:0"}, {Name: "BROKER", Addr: "127.0.0.1:0"}},
		Limits:    ConnLimits{MaxConnections: 2, Protected: "BROKER"},
	}, answerAll(t))
	old, recent := dial(t, addr), dial(t, addr)
	if !served(t, old, 1, waitTimeout) {
		t.Fatal("first client connection not served")
	}
	if !served(t, recent, 1, waitTimeout) {
		t.Fatal("second client connection not served")
	}
	br := dial(t, s.Addr("BROKER").String())
	if !served(t, br, 1, waitTimeout) {
		t.Fatal("the protected listener was held back by max.connections")
	}
	expectClosed(t, old)
	if !served(t, recent, 2, waitTimeout) {
		t.Fatal("the more recently active client connection was closed")
	}
	if st := s.ListenerStats(); st[0].ClosedExcess != 1 {
		t.Fatalf("ClosedExcess %d, want 1", st[0].ClosedExcess)
	}
	s.SetConnLimits(ConnLimits{MaxConnections: 1, Protected: "BROKER"})
	expectClosed(t, recent)
	if !served(t, br, 2, waitTimeout) {
		t.Fatal("the protected connection was closed")
	}
}
