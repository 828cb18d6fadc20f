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
	"kafgo/broker/wire"
)

// interBroker carries this broker's own requests to other brokers: the
// controller's LeaderAndIsr/UpdateMetadata/StopReplica, and AlterPartition
// and ControlledShutdown to the controller. Requests to this broker itself
// run in process through the same API handlers.
type interBroker struct {
	self     int32
	clientID string
	local    *api.Server
	dialer   *wire.Dialer // the inter-broker listener's TLS/SASL

	mu      sync.Mutex
	clients map[string]*wire.Client // by address
}

func newInterBroker(self int32, local *api.Server, dialer *wire.Dialer) *interBroker {
	return &interBroker{self: self, clientID: fmt.Sprintf("broker-%d", self), local: local, dialer: dialer, clients: map[string]*wire.Client{}}
}

// Send implements controller.Sender.
func (ib *interBroker) Send(ctx context.Context, broker int32, addr string, req kmsg.Request) (kmsg.Response, error) {
	if broker == ib.self {
		return ib.local.Local(ctx, req)
	}
	return ib.remote(ctx, addr, req)
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
		c, err = ib.dialer.Dial(ctx, addr, ib.clientID)
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
	ib       *interBroker
	ctl      *controller.Controller
	cache    *clusterview.Cache
	listener string
}

func (cc *controllerClient) addr() (int32, string, error) {
	id := cc.ctl.ActiveID()
	if id < 0 {
		id = cc.cache.View().ControllerID
	}
	if id < 0 {
		return -1, "", fmt.Errorf("broker: no controller is known")
	}
	if id == cc.ib.self {
		return id, "", nil
	}
	b, ok := cc.cache.View().Broker(id)
	if !ok {
		return -1, "", fmt.Errorf("broker: controller %d has no known address", id)
	}
	e, ok := b.Endpoint(cc.listener)
	if !ok {
		return -1, "", fmt.Errorf("broker: controller %d has no %s listener", id, cc.listener)
	}
	return id, net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port))), nil
}

func (cc *controllerClient) send(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	id, addr, err := cc.addr()
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
	return cc.ib.Send(ctx, id, addr, req)
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
