package wire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	fsasl "github.com/twmb/franz-go/pkg/sasl"

	"kafgo/broker/kafkaerr"
)

// DefaultMaxResponseSize bounds a response frame the Client accepts. Memory
// grows with the bytes that arrive, so the cap is about sanity, not DoS.
const DefaultMaxResponseSize = 256 << 20

// ErrMalformedResponse: a peer's response body that does not decode at the
// version asked for.
var ErrMalformedResponse = kafkaerr.Sentinel(kerr.UnknownServerError, "wire: malformed response")

// ErrClientClosed is returned for requests on a closed Client.
var ErrClientClosed = kafkaerr.Sentinel(kerr.NetworkException, "wire: client closed")

// unsupportedVersion is Kafka's UNSUPPORTED_VERSION error code.
const unsupportedVersion = 35

// Client sends kmsg requests over one connection. It pipelines: any number
// of goroutines may call Request concurrently; writes are serialized (which
// fixes the correlation-id order) and responses, which Kafka returns in
// request order, are matched to callers first-in first-out and checked
// against their correlation id. A mismatch, a bad frame or an I/O error
// breaks the connection and fails every outstanding request.
type Client struct {
	nc       net.Conn
	format   *kmsg.RequestFormatter
	maxResp  int32
	wmu      sync.Mutex // serializes writes; guards corr and wbuf
	corr     int32
	wbuf     []byte
	mu       sync.Mutex // guards waiting and err
	waiting  []*call
	err      error
	readDone chan struct{}
	close    sync.Once

	// SASL (Dialer.SASL): re-authentication renews the session at reauthAt;
	// authMu is held shared while writing a request and exclusively while
	// re-authenticating.
	sasl     fsasl.Mechanism
	addr     string
	authMu   sync.RWMutex
	reauthAt time.Time
}

type call struct {
	corr     int32
	flexResp bool
	ch       chan callResult // buffered: the reader never blocks on a caller that gave up
}

type callResult struct {
	body  []byte
	frame []byte // the buffer body is part of, for RequestFunc to recycle
	err   error
}

// Dial connects to addr (host:port) in plaintext and returns a Client that
// sends clientID in every request header. Dialer adds TLS and SASL.
func Dial(ctx context.Context, addr, clientID string) (*Client, error) {
	return (*Dialer)(nil).Dial(ctx, addr, clientID)
}

// NewClient wraps an established connection (e.g. TLS, or a test pipe).
func NewClient(nc net.Conn, clientID string) *Client {
	c := &Client{
		nc:       nc,
		format:   kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)),
		maxResp:  DefaultMaxResponseSize,
		readDone: make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// RemoteAddr is the address of the peer.
func (c *Client) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// Request sends req at the version set on it (SetVersion) and returns the
// decoded response. Produce with acks=0 gets no response from Kafka, so it
// returns (nil, nil) once written. If ctx ends while waiting, Request returns
// ctx's error and the late response is discarded; the connection stays
// usable. An ApiVersions request answered with UNSUPPORTED_VERSION returns
// the v0 response the broker sends in that case (check ErrorCode and retry
// at the advertised version).
func (c *Client) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	res, err := c.authedRoundTrip(ctx, req)
	if err != nil || res.body == nil {
		return nil, err
	}
	return decodeResponse(req, res.body)
}

// RequestFunc is Request for a response only needed briefly: use gets the
// decoded response, and once it returns the response's buffer goes back to
// wire for later frames, so nothing decoded from it (kmsg's byte fields
// alias it) may be kept. A follower applying fetched records saves
// allocating every response so. use is not called when Request would
// return an error or no response.
func (c *Client) RequestFunc(ctx context.Context, req kmsg.Request, use func(kmsg.Response) error) error {
	res, err := c.authedRoundTrip(ctx, req)
	if err != nil || res.body == nil {
		return err
	}
	defer putBody(res.frame)
	resp, err := decodeResponse(req, res.body)
	if err != nil {
		return err
	}
	return use(resp)
}

// authedRoundTrip is roundTrip on a connection kept authenticated: with
// SASL, a session about to expire is re-authenticated first, and the
// request holds the authentication lock until it is written, so a
// re-authentication waits for it and starts only after.
func (c *Client) authedRoundTrip(ctx context.Context, req kmsg.Request) (callResult, error) {
	if c.sasl == nil {
		return c.roundTrip(ctx, req, nil)
	}
	if err := c.maybeReauthenticate(ctx); err != nil {
		return callResult{}, err
	}
	c.authMu.RLock()
	return c.roundTrip(ctx, req, c.authMu.RUnlock)
}

// do sends req and waits for its decoded response, outside the
// authentication lock (the SASL exchange itself).
func (c *Client) do(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	res, err := c.roundTrip(ctx, req, nil)
	if err != nil || res.body == nil {
		return nil, err
	}
	return decodeResponse(req, res.body)
}

// roundTrip sends req and waits for its response frame (none for acks=0);
// written (if not nil) is called once the request is written or failed.
func (c *Client) roundTrip(ctx context.Context, req kmsg.Request, written func()) (callResult, error) {
	key, version := req.Key(), req.GetVersion()
	noResponse := false
	if p, ok := req.(*kmsg.ProduceRequest); ok && p.Acks == 0 {
		noResponse = true
	}
	cl := &call{flexResp: ResponseFlexible(key, req.IsFlexible()), ch: make(chan callResult, 1)}
	err := c.send(ctx, req, cl, noResponse)
	if written != nil {
		written()
	}
	if err != nil {
		return callResult{}, err
	}
	if noResponse {
		return callResult{}, nil
	}
	var res callResult
	select {
	case res = <-cl.ch:
	case <-ctx.Done():
		return callResult{}, fmt.Errorf("wire: %s v%d: %w", kmsg.NameForKey(key), version, ctx.Err())
	}
	return res, res.err
}

// send assigns the correlation id, registers cl and writes the request.
func (c *Client) send(ctx context.Context, req kmsg.Request, cl *call, noResponse bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wire: %s: %w", kmsg.NameForKey(req.Key()), err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.corr++
	if c.corr < 0 { // wrap without going negative
		c.corr = 0
	}
	cl.corr = c.corr
	c.wbuf = c.format.AppendRequest(c.wbuf[:0], req, cl.corr)
	// Registered before writing: the response may arrive before Write returns.
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	if !noResponse {
		c.waiting = append(c.waiting, cl)
	}
	c.mu.Unlock()

	dl, _ := ctx.Deadline()
	_ = c.nc.SetWriteDeadline(dl)
	_, err := c.writeCancelable(ctx)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not pin one large request's buffer forever
	}
	if err != nil {
		// A partial frame corrupts the stream for everyone: give up on it.
		// When the reader failed first (the peer closed, a TLS alert such
		// as a missing client certificate), the write only sees a closed
		// socket: the reader's error is the cause, and the one returned.
		return c.fail(fmt.Errorf("wire: write %s: %w", kmsg.NameForKey(req.Key()), err))
	}
	return nil
}

// writeCancelable writes wbuf; a cancel of ctx (even without a deadline)
// unblocks a stuck write by moving the write deadline into the past.
func (c *Client) writeCancelable(ctx context.Context) (int, error) {
	if ctx.Done() == nil {
		return c.nc.Write(c.wbuf)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = c.nc.SetWriteDeadline(longAgo)
		close(fired)
	})
	n, err := c.nc.Write(c.wbuf)
	if !stop() {
		// The callback started: wait for it, or it could clobber the
		// deadline of the next request's write.
		<-fired
	}
	return n, err
}

// decodeResponse decodes a response body with kmsg. It runs on the
// goroutines of the broker's own clients (replica fetchers, the
// controller's senders), so a peer's garbage must not take the broker
// down: a panic in decoding input kmsg did not foresee becomes an error,
// as a malformed request does on the server side.
func decodeResponse(req kmsg.Request, body []byte) (resp kmsg.Response, err error) {
	key, version := req.Key(), req.GetVersion()
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("%w: decode %s v%d response: panic: %v", ErrMalformedResponse, kmsg.NameForKey(key), version, r)
		}
	}()
	resp = req.ResponseKind()
	// A broker that does not support the ApiVersions version we sent answers
	// in v0 (error_code comes first in every version).
	if key == apiVersionsKey && version > 0 && len(body) >= 2 && int16(binary.BigEndian.Uint16(body)) == unsupportedVersion {
		version = 0
	}
	resp.SetVersion(version)
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("%w: decode %s v%d response: %w", ErrMalformedResponse, kmsg.NameForKey(key), version, err)
	}
	return resp, nil
}

func (c *Client) readLoop() {
	defer close(c.readDone)
	var sizeBuf [4]byte
	// Buffered so a small response costs one read syscall, not two.
	br := bufio.NewReaderSize(c.nc, 4<<10)
	for {
		frame, err := readFrame(br, &sizeBuf, 4, c.maxResp)
		if err != nil {
			c.fail(fmt.Errorf("wire: read response: %w", err))
			return
		}
		corr := int32(binary.BigEndian.Uint32(frame))
		c.mu.Lock()
		if len(c.waiting) == 0 {
			c.mu.Unlock()
			c.fail(fmt.Errorf("%w: unsolicited response, correlation id %d", ErrMalformedHeader, corr))
			return
		}
		cl := c.waiting[0]
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
		c.mu.Unlock()
		if corr != cl.corr {
			err := fmt.Errorf("%w: correlation id %d, expected %d", ErrMalformedHeader, corr, cl.corr)
			cl.ch <- callResult{err: err}
			c.fail(err)
			return
		}
		body := frame[4:]
		if cl.flexResp {
			if body, err = skipTaggedFields(body); err != nil {
				err = fmt.Errorf("%w: response tags: %w", ErrMalformedHeader, err)
				cl.ch <- callResult{err: err}
				c.fail(err)
				return
			}
		}
		cl.ch <- callResult{body: body, frame: frame}
	}
}

// fail breaks the client: records err, closes the socket and fails every
// outstanding request. Only the first error is kept, and returned.
func (c *Client) fail(err error) error {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	err = c.err
	waiting := c.waiting
	c.waiting = nil
	c.mu.Unlock()
	_ = c.nc.Close()
	for _, cl := range waiting {
		cl.ch <- callResult{err: err}
	}
	return err
}

// Close closes the connection; outstanding requests fail with
// ErrClientClosed. It waits for the reader goroutine to exit.
func (c *Client) Close() error {
	var err error
	c.close.Do(func() {
		c.mu.Lock()
		if c.err == nil {
			c.err = ErrClientClosed
		}
		c.mu.Unlock()
		err = c.nc.Close()
	})
	<-c.readDone
	c.fail(ErrClientClosed)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("wire: close: %w", err)
	}
	return nil
}
