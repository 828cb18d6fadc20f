package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/metrics"
)

// Config wires a Controller.
type Config struct {
	BrokerID            int32
	Store               meta.Store
	Sender              Sender
	InterBrokerListener string
	DeleteTopicEnable   bool
	// UncleanLeaderElection reports unclean.leader.election.enable for a
	// topic (its override, else the broker default).
	UncleanLeaderElection  func(topic string) bool
	AutoLeaderRebalance    bool
	ImbalanceCheckInterval time.Duration
	ImbalancePercentage    int
	Logger                 *slog.Logger
	// Metrics receives the ControllerStats; nil keeps none.
	Metrics *metrics.Registry
}

// ErrNotController is returned by requests sent to a broker that is not the
// active controller; it carries Kafka's NOT_CONTROLLER.
var ErrNotController = kafkaerr.New(kerr.NotController, "controller: this broker is not the active controller")

// Controller takes part in the election and, while elected, runs the cluster.
type Controller struct {
	cfg   Config
	store meta.Store
	log   *slog.Logger

	events chan func()
	stop   chan struct{}
	wg     sync.WaitGroup

	activeID atomic.Int32 // the controller as last seen in /controller, -1 none
	stopping atomic.Bool
	epoch    atomic.Int32 // our epoch while active

	// Event-goroutine state: st is non-nil while active; gen counts
	// activations so that watches set by an earlier term are ignored.
	st  *state
	gen int
	// fencedOut is set by a write refused on the controller-epoch check;
	// the rest of the event writes nothing and the loop resigns after it,
	// so no event ever finds its state pulled away halfway.
	fencedOut bool
	chans     *channels
	rebalance *time.Ticker

	lastStats atomic.Pointer[Stats] // the last Stats computed (metrics.go)
}

// New returns a controller that does nothing until Start.
func New(cfg Config) *Controller {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.UncleanLeaderElection == nil {
		cfg.UncleanLeaderElection = func(string) bool { return false }
	}
	if cfg.ImbalanceCheckInterval <= 0 {
		cfg.ImbalanceCheckInterval = 300 * time.Second
	}
	if cfg.ImbalancePercentage <= 0 {
		cfg.ImbalancePercentage = 10
	}
	c := &Controller{
		cfg:    cfg,
		store:  cfg.Store,
		log:    cfg.Logger.With("component", "controller"),
		events: make(chan func(), 4096),
		stop:   make(chan struct{}),
	}
	c.activeID.Store(-1)
	return c
}

// Start runs the event loop and enters the election.
func (c *Controller) Start() {
	c.wg.Add(2)
	go c.loop()
	go c.watchSessions()
	c.submit(c.elect)
}

// Stop resigns (if active) and stops the event loop. The caller closes the
// store afterwards, which releases /controller for the others.
func (c *Controller) Stop() {
	select {
	case <-c.stop:
		return
	default:
	}
	// No election may run from here on: a watch firing on our own
	// /controller deletion must not make us controller again.
	c.stopping.Store(true)
	done := make(chan struct{})
	if c.submit(func() { c.resign("shutting down"); close(done) }) {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	}
	close(c.stop)
	c.wg.Wait()
}

// ActiveID is the id of the active controller as this broker last saw it.
func (c *Controller) ActiveID() int32 { return c.activeID.Load() }

// IsActive reports whether this broker is the active controller.
func (c *Controller) IsActive() bool {
	return c.activeID.Load() == c.cfg.BrokerID && c.epoch.Load() > 0
}

// Epoch is the controller epoch of this broker's current term (0 if none).
func (c *Controller) Epoch() int32 { return c.epoch.Load() }

func (c *Controller) submit(f func()) bool {
	select {
	case <-c.stop:
		return false
	case c.events <- f:
		return true
	}
}

// call runs f on the event goroutine and waits for it.
func call[T any](ctx context.Context, c *Controller, f func() (T, error)) (T, error) {
	var zero T
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	if !c.submit(func() { v, err := f(); ch <- result{v, err} }) {
		return zero, ErrNotController
	}
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

func (c *Controller) loop() {
	defer c.wg.Done()
	for {
		var tick <-chan time.Time
		if c.rebalance != nil {
			tick = c.rebalance.C
		}
		select {
		case <-c.stop:
			if c.st != nil {
				c.resign("stopped")
			}
			return
		case f := <-c.events:
			f()
			if c.fencedOut {
				c.fencedOut = false
				c.resign("fenced by a newer controller epoch")
				c.elect() // find and watch the controller that replaced us
			}
		case <-tick:
			c.autoRebalance()
			if c.fencedOut {
				c.fencedOut = false
				c.resign("fenced by a newer controller epoch")
				c.elect()
			}
		}
	}
}

// watchSessions resigns on session expiry and re-enters the election once a
// new session is up: the ephemeral /controller died with the old one.
func (c *Controller) watchSessions() {
	defer c.wg.Done()
	sessions := c.store.Sessions()
	for {
		select {
		case <-c.stop:
			return
		case s, ok := <-sessions:
			if !ok {
				return
			}
			switch s {
			case meta.SessionExpired:
				c.submit(func() { c.resign("metadata store session expired") })
			case meta.SessionConnected:
				c.submit(c.elect)
			}
		}
	}
}

// watch runs handler on the event goroutine when ev fires, if this
// controller term is still the one that set the watch.
func (c *Controller) watch(ev <-chan meta.Event, handler func()) {
	gen := c.gen
	go func() {
		select {
		case <-c.stop:
		case _, ok := <-ev:
			if !ok {
				return
			}
			c.submit(func() {
				if c.st != nil && c.gen == gen {
					handler()
				}
			})
		}
	}()
}

func (c *Controller) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// fenced reports whether a Multi failed on its controller-epoch check: a
// newer controller exists, so this one must resign.
func fenced(results []meta.OpResult, err error) bool {
	return err != nil && len(results) > 0 && errors.Is(results[0].Err, meta.ErrBadVersion)
}

func (c *Controller) fail(op string, err error) {
	c.log.Error("controller operation failed", "op", op, "err", err)
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("controller: "+format, args...)
}
