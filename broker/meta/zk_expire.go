package meta

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// zkDialer is the dialer go-zookeeper uses. It does two things the client
// library does not expose: it remembers the session id and password from
// each connect response (needed to expire the session on purpose, below),
// and it can refuse new connections for a moment so that the client does
// not win back its session while ExpireSession is closing it. A store given
// up before its first session aborts the dialer: the connection whose
// handshake is in flight is cut and no other is made.
type zkDialer struct {
	// handshake bounds the connect handshake, as the Java client's
	// connectTimeout (session timeout / number of servers). go-zookeeper
	// waits up to ten receive timeouts for the ConnectResponse and reads its
	// body with no deadline at all, so a server that accepts but does not
	// answer (one still starting up, say) would stall reconnection for a
	// minute or more.
	handshake time.Duration

	mu      sync.Mutex
	blocked bool
	aborted bool
	cur     net.Conn // the latest connection made
	id      int64
	passwd  []byte
	timeout int32
	server  string
}

var errDialBlocked = errors.New("meta: dialing paused while the session is being expired")

func (d *zkDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	blocked := d.blocked || d.aborted
	d.mu.Unlock()
	if blocked {
		return nil, errDialBlocked
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.aborted {
		c.Close()
		return nil, errDialBlocked
	}
	d.cur = c
	sc := &sniffConn{Conn: c, d: d, addr: addr}
	if d.handshake > 0 {
		sc.limit = time.Now().Add(d.handshake)
	}
	return sc, nil
}

// abort refuses every further connection and closes the latest, so a
// handshake in flight ends now instead of at its deadline.
func (d *zkDialer) abort() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.aborted = true
	if d.cur != nil {
		d.cur.Close()
	}
}

func (d *zkDialer) sessionID() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.id
}

func (d *zkDialer) creds() (id int64, passwd []byte, timeout int32, server string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.id, append([]byte(nil), d.passwd...), d.timeout, d.server
}

func (d *zkDialer) setBlocked(b bool) {
	d.mu.Lock()
	d.blocked = b
	d.mu.Unlock()
}

// sniffConn copies the first frame the server sends on a connection, the
// ConnectResponse, and records the session credentials from it. Only
// go-zookeeper's single reader goroutine calls Read, so no locking is needed
// for buf and done.
type sniffConn struct {
	net.Conn
	d     *zkDialer
	addr  string
	limit time.Time // handshake deadline; zero for none
	buf   []byte
	done  bool
}

// SetReadDeadline clamps go-zookeeper's read deadlines to the handshake
// deadline until the ConnectResponse has been read. The same goroutine
// that reads the handshake sets these deadlines, so done needs no lock.
func (c *sniffConn) SetReadDeadline(t time.Time) error {
	if !c.done && !c.limit.IsZero() && (t.IsZero() || t.After(c.limit)) {
		t = c.limit
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *sniffConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.done && n > 0 {
		c.buf = append(c.buf, p[:n]...)
		c.parse()
	}
	return n, err
}

// parse decodes ConnectResponse {int32 len; int32 protocolVersion;
// int32 timeOut; int64 sessionId; buffer passwd; [bool readOnly]} once the
// whole frame has arrived.
func (c *sniffConn) parse() {
	if len(c.buf) < 4 {
		return
	}
	n := int(binary.BigEndian.Uint32(c.buf))
	if n < 20 || n > 1024 {
		c.done, c.buf = true, nil // not a connect response we understand
		return
	}
	if len(c.buf) < 4+n {
		return
	}
	f := c.buf[4 : 4+n]
	c.done, c.buf = true, nil
	timeout := int32(binary.BigEndian.Uint32(f[4:]))
	id := int64(binary.BigEndian.Uint64(f[8:]))
	plen := int(int32(binary.BigEndian.Uint32(f[16:])))
	if id == 0 || plen < 0 || 20+plen > len(f) {
		return // an expired session is answered with id 0
	}
	c.d.mu.Lock()
	c.d.id, c.d.timeout, c.d.server = id, timeout, c.addr
	c.d.passwd = append(c.d.passwd[:0], f[20:20+plen]...)
	c.d.mu.Unlock()
}

// ExpireSession makes the server expire this store's session now. It opens
// a second connection that presents the session's id and password and sends
// closeSession on it, the technique ZooKeeper's own tests and Curator use.
// While it does so the store's client may not reconnect, so it cannot take
// the session back first. It returns once the server has closed the session;
// the store then reports SessionExpired and, after reconnecting,
// SessionConnected with a new SessionID.
func (z *zkStore) ExpireSession(ctx context.Context) error {
	if z.closed.Load() {
		return fmt.Errorf("meta: expire session: %w", ErrClosed)
	}
	id, passwd, timeout, server := z.dialer.creds()
	if id == 0 || server == "" {
		return fmt.Errorf("meta: expire session: no session yet: %w", ErrConnectionLoss)
	}
	z.dialer.setBlocked(true)
	defer z.dialer.setBlocked(false)

	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return fmt.Errorf("meta: expire session 0x%x: dial %s: %w", id, server, err)
	}
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	if err := c.SetDeadline(deadline); err != nil {
		return fmt.Errorf("meta: expire session 0x%x: %w", id, err)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()

	// ConnectRequest {protocolVersion 0, lastZxidSeen 0, timeOut, sessionId,
	// passwd, readOnly false}. lastZxidSeen 0 is always acceptable.
	req := make([]byte, 0, 64)
	req = binary.BigEndian.AppendUint32(req, uint32(4+8+4+8+4+len(passwd)+1))
	req = binary.BigEndian.AppendUint32(req, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, uint32(timeout))
	req = binary.BigEndian.AppendUint64(req, uint64(id))
	req = binary.BigEndian.AppendUint32(req, uint32(len(passwd)))
	req = append(req, passwd...)
	req = append(req, 0)
	if _, err := c.Write(req); err != nil {
		return fmt.Errorf("meta: expire session 0x%x: %w", id, err)
	}
	resp, err := readFrame(c)
	if err != nil {
		return fmt.Errorf("meta: expire session 0x%x: connect response: %w", id, err)
	}
	if len(resp) < 16 || int64(binary.BigEndian.Uint64(resp[8:])) != id {
		// The server did not reattach the session: it is already gone.
		return nil
	}
	// RequestHeader {xid 1, type closeSession (-11)}, no body.
	closeReq := binary.BigEndian.AppendUint32(nil, 8)
	closeReq = binary.BigEndian.AppendUint32(closeReq, 1)
	closeReq = binary.BigEndian.AppendUint32(closeReq, uint32(0xfffffff5))
	if _, err := c.Write(closeReq); err != nil {
		return fmt.Errorf("meta: expire session 0x%x: close request: %w", id, err)
	}
	if _, err := readFrame(c); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("meta: expire session 0x%x: close response: %w", id, err)
	}
	z.logger.Info("meta: zookeeper session expired on request", "session", fmt.Sprintf("0x%x", id))
	return nil
}

// readFrame reads one length-prefixed ZooKeeper frame.
func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<20 {
		return nil, fmt.Errorf("frame of %d bytes is too large", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}
