package broker

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/api"
	"kafgo/broker/clusterview"
	"kafgo/broker/controller"
	"kafgo/broker/replica"
	"kafgo/broker/wire"
)

// peers is this broker's address book for the other brokers and its
// dialer to their inter-broker listener (with its TLS and SASL). A broker's
// address comes from the metadata cache (UpdateMetadata); a leader the
// cache does not know yet is found in the live_leaders of the controller's
// last LeaderAndIsr, which the replica manager passes on (LiveLeaders).
type peers struct {
	cache    *clusterview.Cache
	listener string       // inter.broker.listener.name
	dialer   *wire.Dialer // nil dials in plaintext

	mu   sync.Mutex
	live map[int32]string // live_leaders addresses by broker id
}

func newPeers(cache *clusterview.Cache, listener string, dialer *wire.Dialer) *peers {
	return &peers{cache: cache, listener: listener, dialer: dialer, live: map[int32]string{}}
}

// addr resolves broker id's inter-broker address.
func (p *peers) addr(id int32) (string, error) {
	if b, ok := p.cache.View().Broker(id); ok {
		if e, ok := b.Endpoint(p.listener); ok {
			return net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port))), nil
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.live[id]; ok {
		return a, nil
	}
	return "", fmt.Errorf("broker: no %s address known for broker %d", p.listener, id)
}

// LiveLeaders implements replica.LeaderDialer.
func (p *peers) LiveLeaders(ls []kmsg.LeaderAndISRRequestLiveLeader) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range ls {
		p.live[l.BrokerID] = net.JoinHostPort(l.Host, strconv.Itoa(int(l.Port)))
	}
}

// DialLeader implements replica.LeaderDialer: a fetcher's own connection.
func (p *peers) DialLeader(ctx context.Context, id int32, clientID string) (replica.LeaderConn, error) {
	addr, err := p.addr(id)
	if err != nil {
		return nil, err
	}
	c, err := p.dial(ctx, addr, clientID)
	if err != nil {
		return nil, err // not a nil *wire.Client in a non-nil interface
	}
	return c, nil
}

func (p *peers) dial(ctx context.Context, addr, clientID string) (*wire.Client, error) {
	return p.dialer.Dial(ctx, addr, clientID)
}

// interBroker carries this broker's own requests to other brokers over one
// shared connection per broker: the controller's LeaderAndIsr,
// UpdateMetadata and StopReplica, AlterPartition and ControlledShutdown to
// the controller, WriteTxnMarkers, and ListOffsets for consumer lag.
// Requests to this broker itself run in process through the same API
// handlers.
type interBroker struct {
	self     int32
	clientID string
	local    *api.Server
	peers    *peers

	mu      sync.Mutex
	clients map[string]*wire.Client // by address
}

func newInterBroker(self int32, peers *peers) *interBroker {
	return &interBroker{self: self, clientID: fmt.Sprintf("broker-%d", self), peers: peers, clients: map[string]*wire.Client{}}
}

// serveLocal sets the API server that runs this broker's requests to
// itself; call it once, before any request is sent.
func (ib *interBroker) serveLocal(s *api.Server) { ib.local = s }

// Send sends req to broker id, resolving its address (see peers).
func (ib *interBroker) Send(ctx context.Context, id int32, req kmsg.Request) (kmsg.Response, error) {
	if id == ib.self {
		return ib.local.Local(ctx, req)
	}
	addr, err := ib.peers.addr(id)
	if err != nil {
		return nil, err
	}
	return ib.remote(ctx, addr, req)
}

// controllerSender is the controller's controller.Sender: the controller
// knows each broker's address from its registration, so it names it.
type controllerSender struct{ ib *interBroker }

func (s controllerSender) Send(ctx context.Context, id int32, addr string, req kmsg.Request) (kmsg.Response, error) {
	if id == s.ib.self {
		return s.ib.local.Local(ctx, req)
	}
	return s.ib.remote(ctx, addr, req)
}

func (ib *interBroker) remote(ctx context.Context, addr string, req kmsg.Request) (kmsg.Response, error) {
	if addr == "" {
		return nil, fmt.Errorf("broker: no inter-broker address")
	}
	ib.mu.Lock()
	c, ok := ib.clients[addr]
	ib.mu.Unlock()
	if !ok {
		var err error
		c, err = ib.peers.dial(ctx, addr, ib.clientID)
		if err != nil {
			return nil, err
		}
		ib.mu.Lock()
		if prev, ok := ib.clients[addr]; ok {
			c.Close()
			c = prev
		} else {
			ib.clients[addr] = c
		}
		ib.mu.Unlock()
	}
	resp, err := c.Request(ctx, req)
	if err != nil {
		// A broken connection is dropped; the next request redials.
		ib.mu.Lock()
		if ib.clients[addr] == c {
			delete(ib.clients, addr)
		}
		ib.mu.Unlock()
		c.Close()
	}
	return resp, err
}

func (ib *interBroker) close() {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	for a, c := range ib.clients {
		c.Close()
		delete(ib.clients, a)
	}
}

// controllerClient routes requests for the controller: in process when this
// broker is the controller, else to the controller the metadata names.
type controllerClient struct {
	ib    *interBroker
	ctl   *controller.Controller
	cache *clusterview.Cache
}

// id is the active controller: this broker's own when it is the
// controller, else the one the metadata cache names.
func (cc *controllerClient) id() (int32, error) {
	id := cc.ctl.ActiveID()
	if id < 0 {
		id = cc.cache.View().ControllerID
	}
	if id < 0 {
		return -1, fmt.Errorf("broker: no controller is known")
	}
	return id, nil
}

func (cc *controllerClient) send(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	id, err := cc.id()
	if err != nil {
		return nil, err
	}
	// A request to a controller that has since been replaced (it died, or
	// is paused and lost its session) is abandoned at once, so the caller
	// can retry against the new one instead of waiting out the timeout.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			changed := cc.cache.Changed()
			if cur := cc.cache.View().ControllerID; cur >= 0 && cur != id {
				cancel()
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return cc.ib.Send(ctx, id, req)
}

// AlterPartition implements replica.ControllerClient.
func (cc *controllerClient) AlterPartition(ctx context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error) {
	resp, err := cc.send(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.AlterPartitionResponse), nil
}

func (cc *controllerClient) ControlledShutdown(ctx context.Context, req *kmsg.ControlledShutdownRequest) (*kmsg.ControlledShutdownResponse, error) {
	resp, err := cc.send(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.ControlledShutdownResponse), nil
}
