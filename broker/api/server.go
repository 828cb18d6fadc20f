package api

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/fetchsession"
	"kafgo/broker/wire"
)

// Call is one decoded request.
type Call struct {
	Header   wire.RequestHeader
	Conn     *wire.ConnInfo // nil for in-process calls
	Req      kmsg.Request
	Received time.Time

	quota   callQuota   // client quota accounting (quota.go)
	metrics callMetrics // request metrics (metrics.go)

	// immediate is set by a handler whose Reply never waits: Serve then
	// resolves it at once, and wire writes the answer from the
	// connection's reader (no writer goroutine) when nothing is queued
	// before it.
	immediate bool
}

// ClientID is the request's client id, "" when null.
func (c *Call) ClientID() string {
	if c.Header.ClientID == nil {
		return ""
	}
	return *c.Header.ClientID
}

// Listener is the listener the request arrived on; in-process calls use the
// inter-broker listener.
func (c *Call) Listener(def string) string {
	if c.Conn == nil {
		return def
	}
	return c.Conn.Listener
}

// Result is a handler's answer: a kmsg response to encode, a pre-encoded
// body (Fetch), or nothing (Produce acks=0).
type Result struct {
	Resp  kmsg.Response
	Raw   *wire.Response
	None  bool
	Close bool
}

// Reply produces the Result; it may block (long poll, acks=all), and is run
// in request order by the connection writer.
type Reply func() Result

// respond is a Reply that answers r at once (nothing to wait for).
func respond(r kmsg.Response) Reply { return func() Result { return Result{Resp: r} } }

type handlerFunc func(c *Call) Reply

type apiHandler struct {
	key        int16
	minVersion int16
	maxVersion int16
	fn         handlerFunc
}

// Server dispatches decoded requests to handlers. It implements wire.Handler.
type Server struct {
	d        *Deps
	log      *slog.Logger
	sessions *fetchsession.Cache // incremental fetch sessions (KIP-227)
	handlers map[int16]*apiHandler
	versions []kmsg.ApiVersionsResponseApiKey // sorted, for ApiVersions
	faults   *faultTable                      // protocol fault hooks: nil but in e2e builds (faults.go)

	// stopping is closed by BeginShutdown: requests waiting for the
	// cluster to catch up (CreateTopics waiting for leaders) answer now,
	// so the listeners can drain.
	stopping     chan struct{}
	stoppingOnce sync.Once
}

// BeginShutdown makes waiting requests answer at once (see stopping).
func (s *Server) BeginShutdown() {
	s.stoppingOnce.Do(func() { close(s.stopping) })
}

// New builds the dispatcher over the broker's parts.
func New(d *Deps) *Server {
	slots := fetchsession.DefaultSlots
	if d.Config != nil {
		slots = int(d.Config().MaxIncrementalFetchSessionCacheSlots)
	}
	s := &Server{d: d, log: d.Logger.With("component", "api"), handlers: map[int16]*apiHandler{}, sessions: fetchsession.New(slots),
		faults: newFaultTable(), stopping: make(chan struct{})}
	s.registerAll()
	keys := make([]int16, 0, len(s.handlers))
	for k := range s.handlers {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		h := s.handlers[k]
		v := kmsg.NewApiVersionsResponseApiKey()
		v.ApiKey, v.MinVersion, v.MaxVersion = h.key, h.minVersion, h.maxVersion
		s.versions = append(s.versions, v)
	}
	return s
}

func (s *Server) register(req kmsg.Request, minV, maxV int16, fn handlerFunc) {
	if maxV > req.MaxVersion() {
		panic(fmt.Sprintf("api: key %d registered up to v%d, kmsg knows v%d", req.Key(), maxV, req.MaxVersion()))
	}
	s.handlers[req.Key()] = &apiHandler{key: req.Key(), minVersion: minV, maxVersion: maxV, fn: fn}
}

// Supported reports the served version range of an API key.
func (s *Server) Supported(key int16) (minV, maxV int16, ok bool) {
	h, ok := s.handlers[key]
	if !ok {
		return 0, 0, false
	}
	return h.minVersion, h.maxVersion, true
}

// Serve decodes one wire request and runs its handler.
func (s *Server) Serve(req *wire.Request) wire.Pending {
	if p := s.faultHook(req); p != nil {
		return p
	}
	key, version := req.Header.APIKey, req.Header.APIVersion
	h, ok := s.handlers[key]
	if !ok {
		s.log.Info("closing connection: unknown API key", "key", key, "remote", remote(req.Conn))
		return wire.Ready(&wire.Response{Close: true})
	}
	if version < h.minVersion || version > h.maxVersion {
		if key == apiVersionsKey {
			return wire.Ready(&wire.Response{Body: s.unsupportedAPIVersions()})
		}
		s.log.Info("closing connection: unsupported version", "key", key, "version", version, "remote", remote(req.Conn))
		return wire.Ready(&wire.Response{Close: true})
	}
	start := time.Now()
	kreq, err := decodeRequest(key, version, req.Body)
	if err != nil {
		s.log.Info("closing connection: malformed request", "key", key, "version", version, "remote", remote(req.Conn), "err", err)
		return wire.Ready(&wire.Response{Close: true})
	}
	c := &Call{Header: req.Header, Conn: req.Conn, Req: kreq, Received: req.Received}
	c.quota.size = requestSize(req)
	reply := h.fn(c)
	c.quota.handled = time.Since(start)
	s.beginMetrics(c, start, c.quota.handled)
	if key == produceKey {
		// Produce appends (copies) its records before its handler
		// returns and keeps nothing that aliases the body (the reply
		// holds the response and offsets only), so the buffer, the
		// largest allocation of the request path, goes back to wire.
		req.Recycle()
	}
	finish := func() *wire.Response {
		c.resolving()
		res := reply()
		s.settleQuotas(c, &res)
		return c.resolved(res, toWire(res, version))
	}
	if c.immediate {
		return req.Answer(finish())
	}
	return finish
}

// toWire encodes a handler's Result at the request's version.
func toWire(res Result, version int16) *wire.Response {
	switch {
	case res.Raw != nil:
		return res.Raw
	case res.None:
		return &wire.Response{None: true, Close: res.Close}
	}
	res.Resp.SetVersion(version)
	return &wire.Response{Body: res.Resp.AppendTo(nil), Close: res.Close}
}

// Local runs a request in process, as if it had arrived from another broker
// on the inter-broker listener: the controller uses it to talk to its own
// broker, and a broker to its own controller, through the same handlers.
func (s *Server) Local(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	h, ok := s.handlers[req.Key()]
	if !ok {
		return nil, fmt.Errorf("api: local call to unserved key %d", req.Key())
	}
	if v := req.GetVersion(); v < h.minVersion || v > h.maxVersion {
		return nil, fmt.Errorf("api: local call to key %d v%d outside v%d-v%d", req.Key(), v, h.minVersion, h.maxVersion)
	}
	type answer struct {
		res Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		// A handler's panic fails this call, as the wire server closes the
		// connection of a request whose handler panics, instead of taking
		// the broker down.
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in a local call", "api_key", req.Key(), "api_version", req.GetVersion(), "panic", r, "stack", string(debug.Stack()))
				done <- answer{err: fmt.Errorf("api: local call to key %d v%d: panic: %v", req.Key(), req.GetVersion(), r)}
			}
		}()
		res := h.fn(&Call{Header: wire.RequestHeader{APIKey: req.Key(), APIVersion: req.GetVersion()}, Req: req, Received: time.Now()})()
		done <- answer{res: res}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return nil, a.err
		}
		if a.res.Resp == nil {
			return nil, fmt.Errorf("api: local call to key %d gave no response", req.Key())
		}
		return a.res.Resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// decodeRequest decodes a request body with kmsg. kmsg checks every length
// against the bytes that remain; a panic on input it did not foresee is
// turned into an error so one bad request cannot take the broker down.
func decodeRequest(key, version int16, body []byte) (req kmsg.Request, err error) {
	req = kmsg.RequestForKey(key)
	if req == nil {
		return nil, fmt.Errorf("api: unknown key %d", key)
	}
	req.SetVersion(version)
	defer func() {
		if r := recover(); r != nil {
			req, err = nil, fmt.Errorf("api: decoding key %d v%d: %v", key, version, r)
		}
	}()
	if err := req.ReadFrom(body); err != nil {
		return nil, err
	}
	return req, nil
}

func remote(c *wire.ConnInfo) string {
	if c == nil || c.Remote == nil {
		return "local"
	}
	return c.Remote.String()
}

// FetchSessions returns the figures of the fetch session cache.
func (s *Server) FetchSessions() fetchsession.Stats { return s.sessions.Stats() }
