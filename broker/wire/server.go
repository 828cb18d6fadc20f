package wire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/principal"
	"kafgo/broker/sasl"
)

// Defaults applied by NewServer to zero fields of ServerConfig.
const (
	DefaultMaxQueuedPerConn = 16
	DefaultIdleTimeout      = 10 * time.Minute // connections.max.idle.ms
	DefaultWriteTimeout     = 30 * time.Second
)

// ErrServerClosed is returned by Start after Shutdown.
var ErrServerClosed = kafkaerr.Sentinel(kerr.NetworkException, "wire: server closed")

// ListenerConfig names one listener and its security.
type ListenerConfig struct {
	Name string // e.g. PLAINTEXT; unique within a server
	Addr string // host:port; port 0 picks a free port

	// TLS, when set, makes this a TLS listener (SSL, SASL_SSL): every
	// connection completes a handshake before its first request is read.
	// Use GetConfigForClient to rotate certificates without a restart.
	TLS *tls.Config
	// PeerPrincipal maps the verified client certificate of a TLS
	// connection to the connection's principal (SSL listeners with client
	// auth); an error closes the connection. Nil, or no certificate, leaves
	// User:ANONYMOUS.
	PeerPrincipal func(cert *x509.Certificate) (principal.Principal, error)
	// SASL, when set, makes every connection authenticate with SASL before
	// any request other than ApiVersions and the SASL requests is served
	// (SASL_PLAINTEXT, SASL_SSL).
	SASL *sasl.Config
	// HandshakeTimeout bounds the TLS handshake (default 10 s).
	HandshakeTimeout time.Duration
}

// DefaultHandshakeTimeout bounds a TLS handshake when the listener sets none.
const DefaultHandshakeTimeout = 10 * time.Second

// ServerConfig configures a Server. Zero values mean the documented default.
type ServerConfig struct {
	Listeners []ListenerConfig
	// MaxRequestSize is socket.request.max.bytes (default 100 MiB): a larger
	// frame closes the connection before anything is allocated for it.
	MaxRequestSize int32
	// MaxQueuedPerConn is how many requests one connection may have read but
	// not yet answered before the reader stops reading (default 16).
	MaxQueuedPerConn int
	// IdleTimeout is connections.max.idle.ms (default 10 min; < 0 disables).
	IdleTimeout time.Duration
	// WriteTimeout bounds how long a write may make no progress before the
	// connection is closed (default 30 s; < 0 disables). It is re-armed per
	// chunk, so it does not limit the size of a response.
	WriteTimeout time.Duration
	// SendBufferBytes and RecvBufferBytes are socket.send/receive.buffer.bytes;
	// <= 0 keeps the OS default (Kafka's -1).
	SendBufferBytes, RecvBufferBytes int
	// DisableSendfile makes file Parts use pread + write (debugging, or file
	// systems where sendfile misbehaves).
	DisableSendfile bool
	// Limits are the connection limits (max.connections and friends);
	// SetConnLimits changes them while serving.
	Limits ConnLimits
	Logger *slog.Logger // default slog.Default()
}

// Stats are the server's counters, read atomically one by one.
type Stats struct {
	OpenConns      int64  // currently open connections
	Accepted       uint64 // connections accepted since start
	Requests       uint64 // request headers parsed and handed to the handler
	BytesIn        uint64 // bytes read from clients
	BytesOut       uint64 // bytes written to clients
	ClosedForError uint64 // connections closed for bad frames/headers, handler failures, write errors
	ClosedIdle     uint64 // connections closed after IdleTimeout
	Panics         uint64 // panics recovered in Serve or a Pending
	Muted          uint64 // requests held back by a connection's quota mute
	TLSFailures    uint64 // TLS handshakes that failed (wrong protocol, no or bad client certificate)
	AuthFailures   uint64 // connections closed by SASL: failed or unexpected requests, expired sessions
}

type serverStats struct {
	open                                  atomic.Int64
	accepted, requests, bytesIn, bytesOut atomic.Uint64
	closedForError, closedIdle, panics    atomic.Uint64
	muted                                 atomic.Uint64
	tlsFailures, authFailures             atomic.Uint64

	// Reader time (ReaderTime): waits for a next request that ended, and
	// the lifetimes of closed connections, in nanoseconds.
	idleNs, closedLiveNs atomic.Int64
}

// listenerStats are one listener's connection counters (Kafka's
// socket-server-metrics, per listener).
type listenerStats struct {
	open                                        atomic.Int64
	accepted, closed, tlsFailures, authFailures atomic.Uint64
	// Connection limits: time the accept loop waited for a slot, and
	// connections closed for their address's limit or to bring the broker
	// back under max.connections.
	blockedNs                   atomic.Int64
	rejectedPerIP, closedExcess atomic.Uint64
}

// ListenerStats are one listener's connection counters.
type ListenerStats struct {
	Listener     string
	OpenConns    int64  // currently open
	Accepted     uint64 // connections accepted since start
	Closed       uint64 // connections closed since start
	AuthFailures uint64 // failed TLS handshakes and SASL authentications
	// AcceptBlocked is how long, in all, accepting on the listener waited
	// for a connection slot (Kafka's AcceptorBlockedPercent meter).
	AcceptBlocked time.Duration
	// RejectedPerIP counts connections closed at once because their
	// address had max.connections.per.ip (or its override) already;
	// ClosedExcess those closed because the broker was over
	// max.connections.
	RejectedPerIP, ClosedExcess uint64
}

// Server accepts connections on its listeners and serves them with a Handler.
type Server struct {
	cfg ServerConfig
	h   Handler
	log *slog.Logger

	shutting atomic.Bool
	done     chan struct{} // closed by Shutdown; wakes accept backoff
	nextID   atomic.Uint64
	stats    serverStats

	quotas *connQuotas

	mu        sync.Mutex
	bound     bool // listeners bound (Listen or Start)
	started   bool // accepting (Start)
	listeners []*listener
	conns     map[*conn]struct{}

	acceptWG sync.WaitGroup
	connWG   sync.WaitGroup // one per open connection

	// readAheadFull, when set (tests only), is called with the conn's lock
	// held each time a reader stops reading because MaxQueuedPerConn
	// responses are outstanding. It must not block.
	readAheadFull func()
}

type listener struct {
	name  string
	cfg   ListenerConfig
	ln    net.Listener
	stats listenerStats
}

// NewServer returns a server for cfg; call Start to bind the listeners.
func NewServer(cfg ServerConfig, h Handler) *Server {
	if cfg.MaxRequestSize <= 0 {
		cfg.MaxRequestSize = DefaultMaxRequestSize
	}
	if cfg.MaxQueuedPerConn <= 0 {
		cfg.MaxQueuedPerConn = DefaultMaxQueuedPerConn
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Server{
		cfg:    cfg,
		h:      h,
		log:    log,
		done:   make(chan struct{}),
		conns:  make(map[*conn]struct{}),
		quotas: newConnQuotas(cfg.Limits),
	}
}

// SetConnLimits applies new connection limits: waiting accepts go on if
// they now may, and when the broker is over a lowered max.connections the
// least recently active connections of its unprotected listeners close.
func (s *Server) SetConnLimits(l ConnLimits) {
	s.quotas.set(l)
	s.closeExcess()
}

// Listen binds every listener without accepting yet, so a caller with work
// to do before it can serve (the broker: metadata, log recovery) finds a port
// in use at once, and can learn the bound ports (port 0) to advertise. If any
// listener fails, the ones already bound are closed and the error names the
// failing listener. Connections arriving before Start wait in the kernel's
// backlog. Calling Listen again after success does nothing.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listenLocked()
}

func (s *Server) listenLocked() error {
	if s.shutting.Load() {
		return ErrServerClosed
	}
	if s.bound {
		return nil
	}
	if len(s.cfg.Listeners) == 0 {
		return errors.New("wire: no listeners configured")
	}
	seen := make(map[string]bool)
	var bound []*listener
	fail := func(err error) error {
		for _, l := range bound {
			_ = l.ln.Close()
		}
		return err
	}
	for _, lc := range s.cfg.Listeners {
		if lc.Name == "" {
			return fail(fmt.Errorf("wire: listener at %q has no name", lc.Addr))
		}
		if seen[lc.Name] {
			return fail(fmt.Errorf("wire: duplicate listener name %q", lc.Name))
		}
		seen[lc.Name] = true
		ln, err := net.Listen("tcp", lc.Addr)
		if err != nil {
			return fail(fmt.Errorf("wire: listener %s on %s: %w", lc.Name, lc.Addr, err))
		}
		bound = append(bound, &listener{name: lc.Name, cfg: lc, ln: ln})
		s.quotas.register(lc.Name)
	}
	s.bound = true
	s.listeners = bound
	return nil
}

// Start binds every listener (unless Listen did) and starts accepting.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting.Load() {
		return ErrServerClosed
	}
	if s.started {
		return errors.New("wire: server already started")
	}
	if err := s.listenLocked(); err != nil {
		return err
	}
	s.started = true
	for _, l := range s.listeners {
		s.log.Info("wire: listening", "listener", l.name, "addr", l.ln.Addr().String())
		s.acceptWG.Add(1)
		go s.acceptLoop(l)
	}
	return nil
}

// Addr returns the bound address of the named listener, or nil.
func (s *Server) Addr(name string) net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.listeners {
		if l.name == name {
			return l.ln.Addr()
		}
	}
	return nil
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	st := &s.stats
	return Stats{
		OpenConns:      st.open.Load(),
		Accepted:       st.accepted.Load(),
		Requests:       st.requests.Load(),
		BytesIn:        st.bytesIn.Load(),
		BytesOut:       st.bytesOut.Load(),
		ClosedForError: st.closedForError.Load(),
		ClosedIdle:     st.closedIdle.Load(),
		Panics:         st.panics.Load(),
		Muted:          st.muted.Load(),
		TLSFailures:    st.tlsFailures.Load(),
		AuthFailures:   st.authFailures.Load(),
	}
}

// ListenerStats returns each listener's connection counters, in
// configuration order.
func (s *Server) ListenerStats() []ListenerStats {
	s.mu.Lock()
	lns := s.listeners
	s.mu.Unlock()
	out := make([]ListenerStats, 0, len(lns))
	for _, l := range lns {
		st := &l.stats
		out = append(out, ListenerStats{
			Listener: l.name, OpenConns: st.open.Load(), Accepted: st.accepted.Load(), Closed: st.closed.Load(),
			AuthFailures:  st.tlsFailures.Load() + st.authFailures.Load(),
			AcceptBlocked: time.Duration(st.blockedNs.Load()),
			RejectedPerIP: st.rejectedPerIP.Load(), ClosedExcess: st.closedExcess.Load(),
		})
	}
	return out
}

// ReaderTime is the time connections' readers have spent waiting for a
// next request (idle: blocked reading with no part of a request yet), out
// of the time connections have been open (live), summed over every
// connection since start, the ones open now included up to now. Their
// ratio over an interval is how idle the network side was: kafgo's
// analogue of Kafka's network processor idle ratio, for a
// goroutine-per-connection server. A reader that is reading a request,
// serving it, held back by MaxQueuedPerConn or by a quota mute is busy.
func (s *Server) ReaderTime() (idle, live time.Duration) {
	now := time.Now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	idleNs, liveNs := s.stats.idleNs.Load(), s.stats.closedLiveNs.Load()
	for c := range s.conns {
		liveNs += now - c.born
		if w := c.waitSince.Load(); w != 0 {
			idleNs += max(now-w, 0)
		}
	}
	return time.Duration(idleNs), time.Duration(liveNs)
}

// longAgo is a read deadline in the past: setting it wakes a blocked Read.
var longAgo = time.Unix(1, 0)

// Shutdown stops accepting, stops reading new requests, waits until ctx ends
// for the responses already queued to be written, and closes every
// connection. It returns ctx's error if it had to close connections that were
// still answering. Calling it again waits again.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.shutting.Swap(true) {
		close(s.done)
	}
	lns := s.listeners
	s.mu.Unlock()

	s.quotas.shutdown()
	for _, l := range lns {
		_ = l.ln.Close()
	}
	s.acceptWG.Wait()

	// No conn can register now (newConn checks shutting under mu), so the
	// snapshot is complete. The reader checks shutting after arming its own
	// deadline, so this past deadline cannot be overwritten unseen.
	for _, c := range s.snapshotConns() {
		_ = c.nc.SetReadDeadline(longAgo)
	}

	drained := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(drained)
	}()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
	}
	open := s.snapshotConns()
	for _, c := range open {
		c.close(closeShutdown, nil)
	}
	s.log.Warn("wire: shutdown deadline passed, closed connections still answering", "conns", len(open))
	return fmt.Errorf("wire: shutdown: %w", ctx.Err())
}

func (s *Server) snapshotConns() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

func (s *Server) acceptLoop(l *listener) {
	defer s.acceptWG.Done()
	var backoff time.Duration
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if s.shutting.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Typically EMFILE: back off instead of spinning, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("wire: accept failed", "listener", l.name, "err", err, "retry_in", backoff)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-s.done:
				t.Stop()
				return
			}
			continue
		}
		backoff = 0
		addr := remoteAddr(nc)
		blocked, over, excess, ok := s.quotas.acquire(l.name, addr)
		l.stats.blockedNs.Add(int64(blocked))
		if !ok {
			_ = nc.Close()
			return
		}
		if over != 0 {
			// Accepted, then closed at once, as Kafka's acceptor does
			// (counted and logged first, so whoever sees the close sees them).
			l.stats.rejectedPerIP.Add(1)
			s.log.Info(fmt.Sprintf("Rejected connection from %s, address already has the configured maximum of %d connections.", addr, max(over, 0)), "listener", l.name)
			_ = nc.Close()
			s.quotas.dec(l.name, addr)
			continue
		}
		s.newConn(l, nc, addr)
		if excess {
			s.closeExcess()
		}
	}
}

// closeExcess closes, while the broker is over max.connections, the least
// recently active connection of a listener that is not protected (Kafka's
// Processor.closeExcessConnections, which picks the lowest-priority
// channel).
func (s *Server) closeExcess() {
	// Recounted after each close: a connection closing meanwhile on its
	// own also brings the count down.
	for s.quotas.excess() > 0 {
		var victim *conn
		var oldest int64
		s.mu.Lock()
		for c := range s.conns {
			if s.quotas.isProtected(c.l.name) || c.isClosed() {
				continue
			}
			if a := c.lastActive.Load(); victim == nil || a < oldest {
				victim, oldest = c, a
			}
		}
		s.mu.Unlock()
		if victim == nil {
			return
		}
		victim.l.stats.closedExcess.Add(1) // before the close, as above
		victim.close(closeNormal, errors.New("wire: closed to stay within max.connections"))
	}
}

func (s *Server) newConn(l *listener, nc net.Conn, addr netip.Addr) {
	if tc, ok := nc.(*net.TCPConn); ok {
		if s.cfg.SendBufferBytes > 0 {
			_ = tc.SetWriteBuffer(s.cfg.SendBufferBytes)
		}
		if s.cfg.RecvBufferBytes > 0 {
			_ = tc.SetReadBuffer(s.cfg.RecvBufferBytes)
		}
	}
	c := newConn(s, l, nc)
	c.addr = addr
	s.mu.Lock()
	if s.shutting.Load() {
		s.mu.Unlock()
		_ = nc.Close()
		s.quotas.dec(l.name, addr)
		return
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	s.mu.Unlock()
	s.stats.accepted.Add(1)
	s.stats.open.Add(1)
	l.stats.accepted.Add(1)
	l.stats.open.Add(1)
	go c.readLoop()
}

func (s *Server) removeConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	// Under mu, with the delete: ReaderTime counts the connection either
	// as open or as closed, never both.
	s.stats.closedLiveNs.Add(time.Now().UnixNano() - c.born)
	s.mu.Unlock()
	s.quotas.dec(c.l.name, c.addr)
	s.stats.open.Add(-1)
	c.l.stats.open.Add(-1)
	c.l.stats.closed.Add(1)
	s.connWG.Done()
}
