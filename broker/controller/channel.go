package controller

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Sender delivers one controller request to a broker. The broker wiring
// implements it: in process for this broker, over the inter-broker listener
// for the others.
type Sender interface {
	Send(ctx context.Context, broker int32, addr string, req kmsg.Request) (kmsg.Response, error)
}

// outbound is one queued request and what to do with its answer.
type outbound struct {
	req  kmsg.Request
	done func(kmsg.Response, error)
}

// brokerChannel sends requests to one broker strictly in order, retrying a
// request until it is delivered or the channel is closed (the broker died or
// this controller resigned), like Kafka's RequestSendThread.
type brokerChannel struct {
	id     int32
	addr   string
	sender Sender
	log    *slog.Logger

	mu     sync.Mutex
	queue  []outbound
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newBrokerChannel(id int32, addr string, sender Sender, log *slog.Logger) *brokerChannel {
	ctx, cancel := context.WithCancel(context.Background())
	ch := &brokerChannel{id: id, addr: addr, sender: sender, log: log, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go ch.run()
	return ch
}

func (ch *brokerChannel) enqueue(o outbound) {
	ch.mu.Lock()
	ch.queue = append(ch.queue, o)
	ch.mu.Unlock()
	select {
	case ch.wake <- struct{}{}:
	default:
	}
}

func (ch *brokerChannel) close() {
	ch.cancel()
	<-ch.done
}

func (ch *brokerChannel) run() {
	defer close(ch.done)
	backoff := 100 * time.Millisecond
	for {
		ch.mu.Lock()
		var next *outbound
		if len(ch.queue) > 0 {
			next = &ch.queue[0]
		}
		ch.mu.Unlock()
		if next == nil {
			select {
			case <-ch.ctx.Done():
				return
			case <-ch.wake:
				continue
			}
		}
		ctx, cancel := context.WithTimeout(ch.ctx, 30*time.Second)
		resp, err := ch.sender.Send(ctx, ch.id, ch.addr, next.req)
		cancel()
		if err != nil {
			if ch.ctx.Err() != nil {
				return
			}
			ch.log.Warn("controller request failed; retrying", "broker", ch.id, "key", next.req.Key(), "err", err)
			select {
			case <-ch.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 2*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		ch.mu.Lock()
		ch.queue = ch.queue[1:]
		ch.mu.Unlock()
		if next.done != nil {
			next.done(resp, nil)
		}
	}
}

// channels holds one brokerChannel per live broker.
type channels struct {
	sender Sender
	log    *slog.Logger
	byID   map[int32]*brokerChannel
}

func newChannels(sender Sender, log *slog.Logger) *channels {
	return &channels{sender: sender, log: log, byID: map[int32]*brokerChannel{}}
}

func (c *channels) add(id int32, addr string) {
	if old, ok := c.byID[id]; ok {
		if old.addr == addr {
			return
		}
		old.close()
	}
	c.byID[id] = newBrokerChannel(id, addr, c.sender, c.log)
}

func (c *channels) remove(id int32) {
	if ch, ok := c.byID[id]; ok {
		ch.close()
		delete(c.byID, id)
	}
}

func (c *channels) send(id int32, req kmsg.Request, done func(kmsg.Response, error)) {
	if ch, ok := c.byID[id]; ok {
		ch.enqueue(outbound{req: req, done: done})
	}
}

func (c *channels) closeAll() {
	for id := range c.byID {
		c.remove(id)
	}
}
