package broker

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/controller"
	"kafgo/internal/testing/testwait"
)

func metadataRequest() *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 7
	return req
}

// brokerIDs sends Metadata through ib and returns the brokers it lists.
func brokerIDs(ctx context.Context, t *testing.T, ib *interBroker, broker int32, addr string) []int32 {
	t.Helper()
	resp, err := controllerSender{ib}.Send(ctx, broker, addr, metadataRequest())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
		ids = append(ids, b.NodeID)
	}
	return ids
}

func (ib *interBroker) clientCount() int {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return len(ib.clients)
}

// Requests to this broker itself run in process, without an address or a
// connection; requests to another broker go over one pooled connection,
// which is dropped when it breaks and redialed on the next request.
func TestInterBrokerRouting(t *testing.T) {
	ctx := testCtx(t)
	self, _ := startTestBroker(t, testConfig(t, t.TempDir(), nil))
	otherDir := t.TempDir()
	other, _ := startTestBroker(t, testConfig(t, otherDir, map[string]string{"broker.id": "2"}))
	otherAddr := other.Addr("PLAINTEXT").String()

	if ids := brokerIDs(ctx, t, self.ib, 1, ""); len(ids) != 1 || ids[0] != 1 {
		t.Fatalf("in-process Metadata lists brokers %v, want [1]", ids)
	}
	if n := self.net.Stats().Accepted; n != 0 {
		t.Fatalf("a request to self went over the network (%d connections)", n)
	}
	if _, err := (controllerSender{self.ib}).Send(ctx, 2, "", metadataRequest()); err == nil {
		t.Fatal("a request to another broker without an address succeeded")
	}
	// Send resolves the address itself: unknown to this broker's metadata
	// cache (the two brokers are separate clusters), it is unreachable
	// until a LeaderAndIsr names it among the live leaders.
	if _, err := self.ib.Send(ctx, 2, metadataRequest()); err == nil {
		t.Fatal("a request to a broker with no known address succeeded")
	}
	otherTCP := other.Addr("PLAINTEXT").(*net.TCPAddr)
	self.peers.LiveLeaders([]kmsg.LeaderAndISRRequestLiveLeader{{BrokerID: 2, Host: "127.0.0.1", Port: int32(otherTCP.Port)}})
	if resp, err := self.ib.Send(ctx, 2, metadataRequest()); err != nil {
		t.Fatalf("a request to a live leader: %v", err)
	} else if bs := resp.(*kmsg.MetadataResponse).Brokers; len(bs) != 1 || bs[0].NodeID != 2 {
		t.Fatalf("Metadata through the live leader's address lists %v", bs)
	}

	for range 2 {
		if ids := brokerIDs(ctx, t, self.ib, 2, otherAddr); len(ids) != 1 || ids[0] != 2 {
			t.Fatalf("remote Metadata lists brokers %v, want [2]", ids)
		}
	}
	if n := other.net.Stats().Accepted; n != 1 {
		t.Fatalf("two requests took %d connections, want 1", n)
	}

	// The other broker restarts on the same port: the broken connection is
	// dropped, and the next request dials again.
	if err := other.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := (controllerSender{self.ib}).Send(ctx, 2, otherAddr, metadataRequest()); err == nil {
		t.Fatal("a request to a stopped broker succeeded")
	}
	if n := self.ib.clientCount(); n != 0 {
		t.Fatalf("%d pooled connections after a failure, want 0", n)
	}
	restarted, _ := startTestBroker(t, testConfig(t, otherDir, map[string]string{"broker.id": "2", "listeners": "PLAINTEXT://" + otherAddr}))
	if ids := brokerIDs(ctx, t, self.ib, 2, otherAddr); len(ids) != 1 || ids[0] != 2 {
		t.Fatalf("Metadata after the restart lists brokers %v, want [2]", ids)
	}
	if n := restarted.net.Stats().Accepted; n != 1 {
		t.Fatalf("the restarted broker accepted %d connections, want 1", n)
	}
	self.ib.close()
	if n := self.ib.clientCount(); n != 0 {
		t.Fatalf("%d pooled connections after close", n)
	}
}

// The controller client finds the controller in the cluster view and sends
// there, and abandons a request at once when the view names a new
// controller.
func TestControllerClient(t *testing.T) {
	ctx := testCtx(t)
	remote, _ := startTestBroker(t, testConfig(t, t.TempDir(), map[string]string{"broker.id": "2"}))
	cache := clusterview.New()
	ib := newInterBroker(1, newPeers(cache, "PLAINTEXT", nil))
	t.Cleanup(ib.close)
	cc := &controllerClient{ib: ib, ctl: controller.New(controller.Config{BrokerID: 1}), cache: cache}
	req := controlledShutdownRequest(7, -1)

	if _, err := cc.ControlledShutdown(ctx, req); err == nil {
		t.Fatal("a request with no controller known succeeded")
	}
	cache.Apply(clusterview.Update{ControllerID: 2})
	if _, err := cc.ControlledShutdown(ctx, req); err == nil {
		t.Fatal("a request to a controller without an address succeeded")
	}

	addr := remote.Addr("PLAINTEXT").(*net.TCPAddr)
	cache.Apply(clusterview.Update{ControllerID: 2, Brokers: []clusterview.Broker{
		{ID: 2, Endpoints: []clusterview.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: int32(addr.Port)}}},
	}})
	resp, err := cc.ControlledShutdown(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Broker 2's controller answers for broker 7, which it does not know.
	if resp.ErrorCode != kerr.BrokerNotAvailable.Code {
		t.Fatalf("controlled shutdown of an unknown broker: error %d, want BROKER_NOT_AVAILABLE", resp.ErrorCode)
	}

	// A controller that accepts and never answers, then is replaced.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, nc := range conns {
				nc.Close()
			}
		}()
		for {
			nc, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, nc)
		}
	}()
	silentPort := int32(silent.Addr().(*net.TCPAddr).Port)
	cache.Apply(clusterview.Update{ControllerID: 3, Brokers: []clusterview.Broker{
		{ID: 3, Endpoints: []clusterview.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: silentPort}}},
	}})
	done := make(chan error, 1)
	go func() {
		_, err := cc.ControlledShutdown(ctx, req)
		done <- err
	}()
	// Once the request is on its way (its connection is pooled beside the
	// one to broker 2), the controller changes.
	testwait.Until(t, waitTimeout, "a connection to the silent controller", func() bool { return ib.clientCount() == 2 })
	cache.Apply(clusterview.Update{ControllerID: 2})
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("request to a replaced controller: %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("the request to a replaced controller was not abandoned")
	}
}

// A leader that cannot be dialled gives an error and a nil connection (not
// a nil *wire.Client inside a non-nil interface, which a fetcher would
// take for a connection and use).
func TestDialLeaderFailureIsNil(t *testing.T) {
	ctx := testCtx(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	p := newPeers(clusterview.New(), "PLAINTEXT", nil)
	if c, err := p.DialLeader(ctx, 2, "t"); err == nil || c != nil {
		t.Fatalf("unknown leader: %v, %v", c, err)
	}
	p.LiveLeaders([]kmsg.LeaderAndISRRequestLiveLeader{{BrokerID: 2, Host: "127.0.0.1", Port: int32(port)}})
	c, err := p.DialLeader(ctx, 2, "t")
	if err == nil || c != nil {
		t.Fatalf("unreachable leader: conn %v (nil: %t), err %v", c, c == nil, err)
	}
}
