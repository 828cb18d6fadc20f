package wire

import (
	"net"
	"os"
	"sync/atomic"
	"time"

	"kafgo/broker/principal"
	"kafgo/broker/sasl"
)

// RequestHeader is a parsed Kafka request header (v0, v1 or v2).
type RequestHeader struct {
	APIKey, APIVersion int16
	CorrelationID      int32
	// ClientID is nil when the client sent a null client id (length -1) and
	// for header v0 (ControlledShutdown v0). The pointer may be shared by
	// consecutive requests of one connection: treat it as read-only.
	ClientID *string
	// Flexible reports a v2 header (tagged fields present): kmsg's IsFlexible
	// for this key and version. The response header is v1 when this is true,
	// except for ApiVersions.
	Flexible bool
}

// ConnInfo describes the connection a request arrived on. One value is shared
// by all requests of a connection.
type ConnInfo struct {
	ID            uint64 // unique per Server, increasing in accept order
	Listener      string // ListenerConfig.Name, e.g. PLAINTEXT
	Local, Remote net.Addr
	// TLS reports a TLS listener (SSL or SASL_SSL).
	TLS bool
	// SASL is the connection's SASL exchange on a SASL listener, nil on
	// others. The SaslHandshake and SaslAuthenticate handlers drive it.
	SASL *sasl.Session

	// principal is who the peer authenticated as: set by the transport (TLS
	// client certificate, SASL) and read by every request's authorization,
	// possibly on other goroutines (re-authentication, KIP-368, changes it).
	principal atomic.Pointer[principal.Principal]

	mute muteState // quota throttling (mute.go)
}

// Principal is the peer's authenticated principal, User:ANONYMOUS until the
// transport sets one.
func (c *ConnInfo) Principal() principal.Principal {
	if p := c.principal.Load(); p != nil {
		return *p
	}
	return principal.Anonymous
}

// SetPrincipal records who the peer authenticated as.
func (c *ConnInfo) SetPrincipal(p principal.Principal) { c.principal.Store(&p) }

// Request is one request as handed to a Handler.
type Request struct {
	Header RequestHeader
	// Body is the request after the header and its tagged fields: exactly what
	// kmsg's Request.ReadFrom expects. The buffer belongs to the request and is
	// never reused by wire, so decoded fields that alias it stay valid.
	Body     []byte
	Conn     *ConnInfo
	Received time.Time // when the last byte of the frame was read

	frame []byte    // the whole frame Body is part of, for Recycle
	ready *Response // set by Answer
}

// Answer returns a Pending resolved to resp, for a request answered while
// being served. When no earlier response of its connection is still queued,
// the connection's reader writes resp itself rather than handing it to a
// writer goroutine: on the produce path that saves a goroutine start, a
// wake-up and a context switch per request.
func (r *Request) Answer(resp *Response) Pending {
	r.ready = resp
	return Ready(resp)
}

// Recycle hands the request's buffer back to wire for a later request
// (Body is nil afterwards). Call it only once nothing refers to Body or to
// anything decoded from it that aliases it (kmsg's byte fields do): the
// next request's bytes overwrite it. Not calling it is always safe.
func (r *Request) Recycle() {
	if r.frame != nil {
		putBody(r.frame)
	}
	r.frame, r.Body = nil, nil
}

// Part is a piece of a response body: either Bytes, or (when File is set) the
// region [Offset, Offset+Length) of File, sent with sendfile(2) where possible.
// Setting both Bytes and File is an error that closes the connection.
type Part struct {
	Bytes  []byte
	File   *os.File
	Offset int64
	Length int64
	// Hold, if set, keeps File open for the send (storage's descriptor
	// cache closes idle files); wire releases it once the response was
	// written or could not be.
	Hold interface{ Release() }
}

// Response is what a Pending resolves to.
type Response struct {
	// Body is the encoded response body (no size, no header). It is sent
	// first, followed by Parts; usually only one of them is set.
	Body []byte
	// Parts assemble the body from pieces (Fetch zero-copy); wire computes the
	// frame length from them.
	Parts []Part
	// None sends nothing (Produce with acks=0) but still takes its turn, so
	// the responses after it stay in order.
	None bool
	// Close closes the connection after sending, or instead of sending when
	// None is set or Body and Parts are both empty.
	Close bool
	// NoHeader frames Body with its size only, without a response header:
	// the bare SASL tokens that answer SaslHandshake v0 clients.
	NoHeader bool
	// Sent, if set, is told once the response has been written (for None,
	// once its turn has passed); not when the connection fails first.
	// Request metrics use it to time the send.
	Sent SentHook
}

// SentHook is called on the connection's writing goroutine after its
// response is written; it must not block.
type SentHook interface{ ResponseSent() }

// Pending produces a response. The connection's writer calls it exactly once,
// in request order, right before writing its response, so it may block
// (long-poll fetch, acks=all produce) without delaying earlier responses. A nil
// *Response is a handler bug and closes the connection.
type Pending func() *Response

// Ready returns a Pending that yields r at once.
func Ready(r *Response) Pending { return func() *Response { return r } }

// Handler serves requests. Serve is called sequentially per connection, in
// arrival order, from the connection's reader; it must not block for long (put
// waiting into the Pending). Serve must return a non-nil Pending; nil is a
// handler bug and closes the connection.
type Handler interface {
	Serve(req *Request) Pending
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(req *Request) Pending

// Serve calls f(req).
func (f HandlerFunc) Serve(req *Request) Pending { return f(req) }
