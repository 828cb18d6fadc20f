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

// outbound is one queued request and what to do with its answer. delivered,
// if set, runs once the request has been answered or will never be sent
// (the channel closed); it must not block.
type outbound struct {
	req       kmsg.Request
	done      func(kmsg.Response, error)
	delivered func()
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
	defer ch.abandon()
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
		o := *next
		ch.mu.Lock()
		ch.queue = ch.queue[1:]
		ch.mu.Unlock()
		if o.done != nil {
			o.done(resp, nil)
		}
		if o.delivered != nil {
			o.delivered()
		}
	}
}

// abandon releases whoever waits for the delivery of requests left queued
// when the channel closes. Their done callbacks are not run: they would
// report to a controller term that is over, or to a broker that left.
func (ch *brokerChannel) abandon() {
	ch.mu.Lock()
	left := ch.queue
	ch.queue = nil
	ch.mu.Unlock()
	for _, o := range left {
		if o.delivered != nil {
			o.delivered()
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

// send queues req for broker id; delivered (if set) runs once it has been
// answered or dropped, at once when there is no channel to id.
func (c *channels) send(id int32, req kmsg.Request, done func(kmsg.Response, error), delivered func()) {
	ch, ok := c.byID[id]
	if !ok {
		if delivered != nil {
			delivered()
		}
		return
	}
	ch.enqueue(outbound{req: req, done: done, delivered: delivered})
}

func (c *channels) closeAll() {
	for id := range c.byID {
		c.remove(id)
	}
}
