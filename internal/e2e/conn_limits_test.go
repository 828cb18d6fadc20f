package e2e

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/promtext"
	"kafgo/internal/testing/testcluster"
)

// apiVersionsServed sends an ApiVersions v0 request on nc and reports
// whether an answer came within d (false: no answer yet, or closed).
func apiVersionsServed(nc net.Conn, d time.Duration) bool {
	req := kmsg.NewPtrApiVersionsRequest()
	if _, err := nc.Write(kmsg.NewRequestFormatter().AppendRequest(nil, req, 1)); err != nil {
		return false
	}
	_ = nc.SetReadDeadline(time.Now().Add(d))
	var size [4]byte
	if _, err := io.ReadFull(nc, size[:]); err != nil {
		return false
	}
	_, err := io.ReadFull(nc, make([]byte, binary.BigEndian.Uint32(size[:])))
	return err == nil
}

func dialAll(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	var out []net.Conn
	for range n {
		nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = nc.Close() })
		out = append(out, nc)
	}
	return out
}

// TestConnectionLimitsPerIP: with max.connections.per.ip 5, ten
// connections from 127.0.0.1 get five served and five closed at once
// (counted in /metrics); raising the limit dynamically (AlterConfigs on
// the cluster default) admits more. Before, the keys were parsed and not
// enforced: every connection was served.
func TestConnectionLimitsPerIP(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 1, Config: map[string]string{"max.connections.per.ip": "5"}})
	b := c.Brokers()[0]
	// The broker's controller keeps a connection to the broker itself
	// (as Kafka's does); it counts against 127.0.0.1 too.
	own := settledConnections(t, b)
	count := func(n int) int {
		served := 0
		conns := dialAll(t, b.Addr(), n)
		for _, nc := range conns {
			if apiVersionsServed(nc, 5*time.Second) {
				served++
			}
		}
		for _, nc := range conns {
			_ = nc.Close()
		}
		return served
	}
	got10 := count(10)
	t.Logf("own %d, served %d of 10", own, got10)
	if got := got10; got != 5-own {
		t.Fatalf("%d of 10 connections served with max.connections.per.ip 5 and %d of the broker's own", got, own)
	}
	if got := promtext.Sum(scrapeMetrics(t, b), "kafgo_network_connections_rejected_total", map[string]string{"reason": "per_ip"}); got != float64(5+own) {
		t.Fatalf("rejected per IP: %v, want %d", got, 5+own)
	}
	// The admin client's own connections count too; it is closed before
	// counting again.
	waitConnections(t, b, float64(own))
	adm := kadm.NewClient(c.Client())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v := "8"
	if _, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "max.connections.per.ip", Value: &v}}); err != nil {
		t.Fatal(err)
	}
	adm.Close()
	waitConnections(t, b, float64(own))
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := count(10)
		if got == 8-own {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 10 served after raising the limit to 8", got)
		}
		waitConnections(t, b, float64(own))
	}
}

// TestMaxConnectionsHoldsAccepts: at max.connections the broker accepts
// the next connection but serves it only once another closes.
func TestMaxConnectionsHoldsAccepts(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 1, Config: map[string]string{"max.connections": "4"}})
	b := c.Brokers()[0]
	own := settledConnections(t, b)
	conns := dialAll(t, b.Addr(), 4-own)
	for i, nc := range conns {
		if !apiVersionsServed(nc, 10*time.Second) {
			t.Fatalf("connection %d of %d not served", i, 4-own)
		}
	}
	extra := dialAll(t, b.Addr(), 1)[0]
	if apiVersionsServed(extra, time.Second) {
		t.Fatal("a fifth connection was served with max.connections 4")
	}
	_ = conns[0].Close()
	// Its request was read once the slot freed: the answer arrives now.
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	if _, err := io.ReadFull(extra, size[:]); err != nil {
		t.Fatalf("the held connection was not served after one closed: %v", err)
	}
}

// settledConnections is how many connections the broker holds once
// started with no client: its controller's own (a count that stays put
// for half a second).
func settledConnections(t *testing.T, b *testcluster.Broker) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	last, since := -1.0, time.Now()
	for time.Now().Before(deadline) {
		got := promtext.Sum(scrapeMetrics(t, b), "kafka_server_socket_server_metrics_connection_count", map[string]string{"listener": "PLAINTEXT"})
		if got != last {
			last, since = got, time.Now()
		} else if time.Since(since) > 500*time.Millisecond {
			return int(got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the broker's connection count did not settle")
	return 0
}

// waitConnections waits until the broker's client listener has n open
// connections (closed ones leave a moment after the client closes).
func waitConnections(t *testing.T, b *testcluster.Broker, n float64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := promtext.Sum(scrapeMetrics(t, b), "kafka_server_socket_server_metrics_connection_count", map[string]string{"listener": "PLAINTEXT"})
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v open connections, waiting for %v", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
