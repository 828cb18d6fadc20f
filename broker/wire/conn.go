package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"kafgo/broker/sasl"
)

var (
	errIdle     = errors.New("wire: connection idle")
	errShutdown = errors.New("wire: server shutting down")
)

// closeReason classifies why a connection closed, for stats and log level.
type closeReason int

const (
	closeNormal   closeReason = iota // EOF, peer reset, handler asked
	closeIdle                        // IdleTimeout passed
	closeShutdown                    // Server.Shutdown
	closeError                       // protocol violation, handler bug, write failure
)

func (r closeReason) String() string {
	switch r {
	case closeIdle:
		return "idle"
	case closeShutdown:
		return "shutdown"
	case closeError:
		return "error"
	default:
		return "normal"
	}
}

// item is a request whose response is not yet written.
type item struct {
	pending  Pending
	corr     int32
	key      int16
	flexResp bool
}

// conn is one accepted connection. Only the reader goroutine touches sizeBuf
// and lastClientID; mu guards the queue and the lifecycle flags.
type conn struct {
	srv  *Server
	l    *listener
	lcfg *ListenerConfig
	nc   net.Conn   // a *tls.Conn on TLS listeners
	addr netip.Addr // the client's address, for the per-IP limits
	info ConnInfo
	cr   connReader
	br   *bufio.Reader // small: lets one read syscall take the size and a small request
	cw   connWriter

	sizeBuf      [4]byte
	lastClientID *string
	lastActive   atomic.Int64 // unix nanos of the last read or written response

	// Reader time (Server.ReaderTime): born is when the connection was
	// accepted; awaiting (reader only) marks that the next socket read
	// waits for a new request; waitSince is when that wait began, 0 when
	// the reader is not waiting.
	born      int64
	awaiting  bool
	waitSince atomic.Int64

	mu       sync.Mutex
	slotFree sync.Cond // signalled when an item is retired or the conn closes
	q        []item    // in request order; q[0] is being resolved/written
	writing  bool      // a writer goroutine is running
	readDone bool      // the reader stopped cleanly; close once q drains
	closed   bool
}

// readBufSize is the per-connection read buffer. Small requests (heartbeats,
// commits, metadata) fit whole, saving a read syscall each; bufio reads larger
// bodies straight into their own buffer.
const readBufSize = 512

func newConn(s *Server, l *listener, nc net.Conn) *conn {
	c := &conn{
		srv:  s,
		l:    l,
		lcfg: &l.cfg,
		nc:   nc,
		info: ConnInfo{
			ID:       s.nextID.Add(1),
			Listener: l.name,
			Local:    nc.LocalAddr(),
			Remote:   nc.RemoteAddr(),
		},
	}
	if l.cfg.TLS != nil {
		c.nc = tls.Server(nc, l.cfg.TLS)
		c.info.TLS = true
	}
	if l.cfg.SASL != nil {
		c.info.SASL = sasl.NewSession(l.cfg.SASL, c.info.SetPrincipal)
	}
	c.cr.c = c
	c.br = bufio.NewReaderSize(&c.cr, readBufSize)
	c.cw.c = c
	c.slotFree.L = &c.mu
	c.born = time.Now().UnixNano()
	c.lastActive.Store(c.born)
	return c
}

func (c *conn) logAttrs(extra ...any) []any {
	return append([]any{"conn", c.info.ID, "listener", c.info.Listener, "remote", addrString(c.info.Remote)}, extra...)
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// readLoop reads, parses and serves requests until the connection ends.
func (c *conn) readLoop() {
	s := c.srv
	if !c.tlsHandshake() {
		return
	}
	sess := c.info.SASL
	for {
		if !c.waitSlot() {
			return
		}
		// Before SASL completes, the frame cap is sasl.server.max.receive.size,
		// checked on the size field before anything is allocated
		// (CVE-2022-34917); after SaslHandshake v0 the next frame is a bare
		// token. The handlers of the previous request already ran (Serve is
		// synchronous), so the phase read here is current.
		phase := sasl.PhaseComplete
		minSize, maxSize := int32(MinFrameSize), s.cfg.MaxRequestSize
		if sess != nil {
			if phase = sess.Phase(); phase != sasl.PhaseComplete {
				maxSize = min(maxSize, sess.MaxReceiveSize())
			}
			if phase == sasl.PhaseRawToken {
				minSize = 0
			}
		}
		// With nothing buffered, the next socket read waits for a new
		// request; bytes already buffered mean one has begun arriving.
		c.awaiting = c.br.Buffered() == 0
		frame, err := readFrame(c.br, &c.sizeBuf, minSize, maxSize)
		if err != nil {
			if sess != nil && phase != sasl.PhaseComplete && errors.Is(err, ErrFrameTooLarge) {
				c.authFailed()
				s.log.Info("wire: closing connection: SASL frame over sasl.server.max.receive.size before authentication", c.logAttrs("err", err)...)
				c.close(closeError, err)
				return
			}
			c.readFailed(err)
			return
		}
		if !c.awaitUnmute() {
			return
		}
		if phase == sasl.PhaseRawToken {
			if !c.rawToken(frame) {
				return
			}
			continue
		}
		if s.shutting.Load() {
			// Shutdown began while this frame arrived: from then on no new
			// request reaches the handler.
			c.finishReading()
			return
		}
		hdr, body, err := parseRequestHeader(frame, c.lastClientID)
		if err != nil {
			c.srv.log.Info("wire: closing connection: malformed request header", c.logAttrs("err", err)...)
			c.close(closeError, err)
			return
		}
		if sess != nil {
			if err := sess.Admit(hdr.APIKey, time.Now()); err != nil {
				c.authFailed()
				s.log.Info("wire: closing connection: SASL", c.logAttrs("api_key", hdr.APIKey, "err", err)...)
				c.close(closeError, err)
				return
			}
		}
		c.lastClientID = hdr.ClientID
		s.stats.requests.Add(1)
		req := &Request{Header: hdr, Body: body, Conn: &c.info, Received: time.Now(), frame: frame}
		p, ok := c.serve(req)
		if !ok {
			return
		}
		it := item{pending: p, corr: hdr.CorrelationID, key: hdr.APIKey, flexResp: ResponseFlexible(hdr.APIKey, hdr.Flexible)}
		if req.ready != nil {
			if done, ok := c.writeInline(it, req.ready); !ok {
				return
			} else if done {
				continue
			}
		}
		if !c.enqueue(it) {
			return
		}
	}
}

// tlsHandshake completes the TLS handshake of a TLS listener's connection
// and derives the principal from the client certificate. It reports false
// (and closes) on failure: a plaintext client on a TLS port, a missing or
// untrusted client certificate, a protocol or cipher mismatch.
func (c *conn) tlsHandshake() bool {
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return true
	}
	s := c.srv
	timeout := c.lcfg.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultHandshakeTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// Shutdown ends a handshake in progress.
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.tlsFailed()
		s.log.Info("wire: closing connection: TLS handshake failed", c.logAttrs("err", err)...)
		c.close(closeError, err)
		return false
	}
	if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 && c.lcfg.PeerPrincipal != nil {
		p, err := c.lcfg.PeerPrincipal(certs[0])
		if err != nil {
			c.tlsFailed()
			s.log.Info("wire: closing connection: no principal for the client certificate", c.logAttrs("err", err)...)
			c.close(closeError, err)
			return false
		}
		c.info.SetPrincipal(p)
	}
	c.lastActive.Store(time.Now().UnixNano())
	return true
}

// rawToken answers one bare SASL token (after SaslHandshake v0). A failure
// closes the connection without an answer, as Kafka does for such clients.
func (c *conn) rawToken(tok []byte) bool {
	resp, err := c.info.SASL.RawToken(tok)
	if err != nil {
		c.authFailed()
		c.srv.log.Info("wire: closing connection: SASL authentication failed", c.logAttrs("err", err)...)
		c.close(closeError, err)
		return false
	}
	return c.enqueue(item{pending: Ready(&Response{Body: resp, NoHeader: true}), key: -1})
}

func (c *conn) tlsFailed() {
	c.srv.stats.tlsFailures.Add(1)
	c.l.stats.tlsFailures.Add(1)
}

func (c *conn) authFailed() {
	c.srv.stats.authFailures.Add(1)
	c.l.stats.authFailures.Add(1)
}

func (c *conn) readFailed(err error) {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, errShutdown):
		// Clean end of input: answer what was already read, then close.
		c.finishReading()
	case errors.Is(err, errIdle):
		c.close(closeIdle, nil)
	case errors.Is(err, ErrFrameTooLarge):
		// Kafka logs oversize frames too; info, with who and how big.
		c.srv.log.Info("wire: closing connection: request too large", c.logAttrs("err", err)...)
		c.close(closeError, err)
	case errors.Is(err, ErrFrameTooSmall):
		c.srv.log.Info("wire: closing connection: invalid request size", c.logAttrs("err", err)...)
		c.close(closeError, err)
	case errors.Is(err, ErrTruncated):
		// A client killed mid-request; common enough to stay at debug.
		c.close(closeError, err)
	default:
		// Peer reset, or we closed the socket ourselves: not the handler's
		// nor the peer's protocol fault.
		c.close(closeNormal, err)
	}
}

// serve calls the handler, turning a panic or a nil Pending into a closed
// connection.
func (c *conn) serve(req *Request) (p Pending, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.srv.stats.panics.Add(1)
			c.srv.log.Error("wire: panic in Serve", c.logAttrs("api_key", req.Header.APIKey, "api_version", req.Header.APIVersion, "panic", r, "stack", string(debug.Stack()))...)
			c.close(closeError, fmt.Errorf("wire: panic in Serve for key %d: %v", req.Header.APIKey, r))
			p, ok = nil, false
		}
	}()
	p = c.srv.h.Serve(req)
	if p == nil {
		err := fmt.Errorf("wire: handler returned nil Pending for key %d v%d", req.Header.APIKey, req.Header.APIVersion)
		c.srv.log.Error("wire: closing connection", c.logAttrs("err", err)...)
		c.close(closeError, err)
		return nil, false
	}
	return p, true
}

// waitSlot blocks until fewer than MaxQueuedPerConn responses are
// outstanding, so the reader stops reading (and TCP pushes back) rather than
// queueing without bound. It reports false once the conn is closed.
func (c *conn) waitSlot() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.closed && len(c.q) >= c.srv.cfg.MaxQueuedPerConn {
		if c.srv.readAheadFull != nil {
			c.srv.readAheadFull()
		}
		c.slotFree.Wait()
	}
	return !c.closed
}

// enqueue appends it and starts a writer if none runs.
func (c *conn) enqueue(it item) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.q = append(c.q, it)
	start := !c.writing
	c.writing = true
	c.mu.Unlock()
	if start {
		go c.writeLoop()
	}
	return true
}

// busy reports whether responses are outstanding (the connection is not idle
// even if the client sends nothing: it is waiting for us).
func (c *conn) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.q) > 0
}

// finishReading records that no more requests will be read and closes the
// connection now if nothing is outstanding; otherwise the writer closes it
// once the queue drains.
func (c *conn) finishReading() {
	c.mu.Lock()
	c.readDone = true
	drained := !c.writing
	c.mu.Unlock()
	if drained {
		c.close(closeShutdownOrNormal(c.srv), nil)
	}
}

func closeShutdownOrNormal(s *Server) closeReason {
	if s.shutting.Load() {
		return closeShutdown
	}
	return closeNormal
}

// close closes the connection once; later calls do nothing. Queued Pendings
// are dropped without being called.
func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *conn) close(why closeReason, err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.q = nil
	c.slotFree.Broadcast()
	c.mu.Unlock()
	c.info.mute.closed()

	_ = c.nc.Close()
	s := c.srv
	switch why {
	case closeError:
		s.stats.closedForError.Add(1)
	case closeIdle:
		s.stats.closedIdle.Add(1)
	}
	// Guarded so the common quiet close does not build attributes.
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("wire: connection closed", c.logAttrs("reason", why.String(), "err", err)...)
	}
	s.removeConn(c)
}

// connReader reads from the socket, enforcing the idle timeout and noticing
// shutdown. A read deadline that fires while responses are outstanding, or
// while the last activity is recent, is re-armed instead of closing.
type connReader struct{ c *conn }

// Read reads from the socket; the first read for a new request is the
// reader's idle wait, timed for Server.ReaderTime.
func (r *connReader) Read(p []byte) (int, error) {
	c := r.c
	if !c.awaiting {
		return r.read(p)
	}
	c.awaiting = false
	start := time.Now().UnixNano()
	c.waitSince.Store(start)
	n, err := r.read(p)
	end := c.lastActive.Load() // the read stamped it when it got bytes
	if n == 0 {
		end = time.Now().UnixNano()
	}
	// Cleared before the add: a scrape in between undercounts by this
	// wait rather than counting it twice.
	c.waitSince.Store(0)
	c.srv.stats.idleNs.Add(max(end-start, 0))
	return n, err
}

func (r *connReader) read(p []byte) (int, error) {
	c := r.c
	s := c.srv
	idle := s.cfg.IdleTimeout
	for {
		if idle > 0 {
			dl := time.Unix(0, c.lastActive.Load()).Add(idle)
			if !dl.After(time.Now()) {
				if !c.busy() {
					return 0, errIdle
				}
				dl = time.Now().Add(idle)
			}
			_ = c.nc.SetReadDeadline(dl)
		}
		// Checked after arming the deadline: Shutdown sets the flag, then a
		// past deadline, so either we see the flag or our Read sees its
		// deadline.
		if s.shutting.Load() {
			return 0, errShutdown
		}
		n, err := c.nc.Read(p)
		if n > 0 {
			s.stats.bytesIn.Add(uint64(n))
			c.lastActive.Store(time.Now().UnixNano())
			return n, nil
		}
		if isTimeout(err) && (idle > 0 || s.shutting.Load()) {
			continue // the top of the loop decides: shutdown, idle, or re-arm
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return 0, err
	}
}

func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// connWriter writes to the socket in chunks, re-arming the write deadline per
// chunk so the timeout bounds a stall, not the response size.
type connWriter struct{ c *conn }

const writeChunk = 1 << 20

func (w *connWriter) Write(p []byte) (int, error) {
	c := w.c
	wt := c.srv.cfg.WriteTimeout
	total := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), writeChunk)]
		if wt > 0 {
			_ = c.nc.SetWriteDeadline(time.Now().Add(wt))
		}
		n, err := c.nc.Write(chunk)
		total += n
		c.srv.stats.bytesOut.Add(uint64(n))
		if err != nil {
			return total, err
		}
		p = p[n:]
	}
	return total, nil
}
