package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// gates are per-request release channels a test opens in any order.
type gates struct {
	mu sync.Mutex
	m  map[int32]chan struct{}
}

func (g *gates) get(corr int32) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = make(map[int32]chan struct{})
	}
	ch, ok := g.m[corr]
	if !ok {
		ch = make(chan struct{})
		g.m[corr] = ch
	}
	return ch
}

// gatedHandler's Pending for each request waits for its gate (bounded by the
// test wait) and answers with the correlation id as body.
func gatedHandler(g *gates, served *atomic.Int64) Handler {
	return HandlerFunc(func(req *Request) Pending {
		served.Add(1)
		ch := g.get(req.Header.CorrelationID)
		corr := req.Header.CorrelationID
		return func() *Response {
			select {
			case <-ch:
			case <-time.After(waitTimeout):
			}
			return &Response{Body: binary.BigEndian.AppendUint32(nil, uint32(corr))}
		}
	})
}

func corrOf(frame []byte) int32 { return int32(binary.BigEndian.Uint32(frame)) }

// TestPipelinedResponsesInOrder: Pendings released in reverse order still
// produce responses in request order; Serve keeps running (up to the
// read-ahead bound) while the first Pending blocks.
func TestPipelinedResponsesInOrder(t *testing.T) {
	const n, queued = 20, 16
	var g gates
	var served atomic.Int64
	full := make(chan struct{}, 1)
	_, addr, _ := startServerWith(t, ServerConfig{MaxQueuedPerConn: queued}, gatedHandler(&g, &served), func(s *Server) {
		s.readAheadFull = func() {
			select {
			case full <- struct{}{}:
			default:
			}
		}
	})
	nc := dial(t, addr)
	var batch []byte
	for i := int32(0); i < n; i++ {
		batch = append(batch, encodeRequest(metadataRequest(1), i, kmsg.StringPtr("p"))...)
	}
	writeAll(t, nc, batch)

	// The bound must hold, not just be reached: the reader has stopped
	// reading (it waits for a slot), and has served exactly the bound.
	select {
	case <-full:
	case <-time.After(waitTimeout):
		t.Fatal("the reader never stopped for a full read-ahead")
	}
	if got := served.Load(); got != queued {
		t.Fatalf("served %d requests while the first Pending blocks, want exactly %d", got, queued)
	}
	for i := int32(n - 1); i >= 0; i-- {
		close(g.get(i))
	}
	for i := int32(0); i < n; i++ {
		frame := readFrameRaw(t, nc)
		if corrOf(frame) != i || corrOf(frame[4:]) != i {
			t.Fatalf("response %d has correlation id %d", i, corrOf(frame))
		}
	}
	if served.Load() != n {
		t.Fatalf("served %d", served.Load())
	}
}

// TestBlockedPendingDoesNotDelayEarlierResponse: a response is flushed before
// the next (blocking) Pending is called.
func TestBlockedPendingDoesNotDelayEarlierResponse(t *testing.T) {
	var g gates
	var served atomic.Int64
	_, addr, _ := startServer(t, ServerConfig{}, gatedHandler(&g, &served))
	close(g.get(0))
	nc := dial(t, addr)
	writeAll(t, nc, append(encodeRequest(metadataRequest(1), 0, nil), encodeRequest(metadataRequest(1), 1, nil)...))
	if corrOf(readFrameRaw(t, nc)) != 0 {
		t.Fatal("wrong first response")
	}
	close(g.get(1))
	if corrOf(readFrameRaw(t, nc)) != 1 {
		t.Fatal("wrong second response")
	}
}

// TestConnectionsRunInParallel: a blocked Pending (and a blocked Serve) on
// one connection does not hold up another connection.
func TestConnectionsRunInParallel(t *testing.T) {
	serveGate := make(chan struct{})
	var g gates
	var served atomic.Int64
	gated := gatedHandler(&g, &served)
	h := HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 100 { // blocks inside Serve itself
			select {
			case <-serveGate:
			case <-time.After(waitTimeout):
			}
		}
		return gated.Serve(req)
	})
	_, addr, _ := startServer(t, ServerConfig{}, h)
	a, b, c := dial(t, addr), dial(t, addr), dial(t, addr)
	writeAll(t, a, encodeRequest(metadataRequest(1), 1, nil))   // Pending blocks
	writeAll(t, c, encodeRequest(metadataRequest(1), 100, nil)) // Serve blocks
	testwait.Until(t, waitTimeout, "both blocked requests to be served", func() bool { return served.Load() == 1 })
	close(g.get(2))
	writeAll(t, b, encodeRequest(metadataRequest(1), 2, nil))
	if corrOf(readFrameRaw(t, b)) != 2 {
		t.Fatal("wrong response on b")
	}
	close(g.get(1))
	if corrOf(readFrameRaw(t, a)) != 1 {
		t.Fatal("wrong response on a")
	}
	close(g.get(100))
	close(serveGate)
	if corrOf(readFrameRaw(t, c)) != 100 {
		t.Fatal("wrong response on c")
	}
}

// scripted answers request with correlation id i using responses[i].
func scripted(responses map[int32]func() *Response) Handler {
	return HandlerFunc(func(req *Request) Pending {
		if f, ok := responses[req.Header.CorrelationID]; ok {
			return f
		}
		return Ready(&Response{Body: []byte{0xee}})
	})
}

func TestResponseNoneAndClose(t *testing.T) {
	tests := []struct {
		name      string
		responses map[int32]func() *Response
		wantCorrs []int32 // responses expected before the close (or before stopping)
		wantClose bool
		wantError bool
	}{
		{name: "None keeps order", responses: map[int32]func() *Response{1: Ready(&Response{None: true})}, wantCorrs: []int32{0, 2}},
		{name: "Close after sending", responses: map[int32]func() *Response{1: Ready(&Response{Body: []byte{1}, Close: true})}, wantCorrs: []int32{0, 1}, wantClose: true},
		{name: "Close instead of sending", responses: map[int32]func() *Response{1: Ready(&Response{Close: true})}, wantCorrs: []int32{0}, wantClose: true},
		{name: "None and Close", responses: map[int32]func() *Response{1: Ready(&Response{None: true, Body: []byte{1}, Close: true})}, wantCorrs: []int32{0}, wantClose: true},
		{name: "nil Response", responses: map[int32]func() *Response{1: func() *Response { return nil }}, wantCorrs: []int32{0}, wantClose: true, wantError: true},
		{name: "panic in Pending", responses: map[int32]func() *Response{1: func() *Response { panic("boom") }}, wantCorrs: []int32{0}, wantClose: true, wantError: true},
		{name: "Bytes and File in one part", responses: map[int32]func() *Response{1: Ready(&Response{Parts: []Part{{Bytes: []byte{1}, File: &osFileSentinel}}})}, wantCorrs: []int32{0}, wantClose: true, wantError: true},
		{name: "negative part length", responses: map[int32]func() *Response{1: Ready(&Response{Parts: []Part{{File: &osFileSentinel, Length: -1}}})}, wantCorrs: []int32{0}, wantClose: true, wantError: true},
		{name: "parts over 2 GiB", responses: map[int32]func() *Response{1: Ready(&Response{Parts: []Part{{File: &osFileSentinel, Length: 1 << 62}, {File: &osFileSentinel, Length: 1 << 62}}})}, wantCorrs: []int32{0}, wantClose: true, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, addr, _ := startServer(t, ServerConfig{}, scripted(tt.responses))
			nc := dial(t, addr)
			var batch []byte
			for i := int32(0); i < 3; i++ {
				batch = append(batch, encodeRequest(metadataRequest(1), i, nil)...)
			}
			writeAll(t, nc, batch)
			for _, want := range tt.wantCorrs {
				if got := corrOf(readFrameRaw(t, nc)); got != want {
					t.Fatalf("got response %d, want %d", got, want)
				}
			}
			if tt.wantClose {
				if rest := expectClosed(t, nc); len(rest) != 0 {
					t.Fatalf("%d bytes after the last expected response", len(rest))
				}
			}
			if tt.wantError {
				testwait.Until(t, waitTimeout, "error close counted", func() bool { return s.Stats().ClosedForError == 1 })
			}
			checkServes(t, addr)
		})
	}
}

func TestPanicInServeClosesOnlyThatConnection(t *testing.T) {
	h := HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 13 {
			panic("handler bug")
		}
		return Ready(&Response{Body: []byte{1}})
	})
	s, addr, logs := startServer(t, ServerConfig{}, h)
	other := dial(t, addr)
	writeAll(t, other, encodeRequest(metadataRequest(1), 1, nil))
	readFrameRaw(t, other)

	bad := dial(t, addr)
	writeAll(t, bad, encodeRequest(metadataRequest(1), 13, nil))
	expectClosed(t, bad)
	testwait.Until(t, waitTimeout, "panic counted", func() bool { return s.Stats().Panics == 1 })
	if out := logs.String(); !containsAll(out, "panic in Serve", "api_key=3", "handler bug") {
		t.Fatalf("panic log lacks key or value:\n%s", out)
	}
	writeAll(t, other, encodeRequest(metadataRequest(1), 2, nil))
	if corrOf(readFrameRaw(t, other)) != 2 {
		t.Fatal("other connection broken")
	}
}

func TestNilPendingClosesConnection(t *testing.T) {
	s, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending { return nil }))
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	expectClosed(t, nc)
	testwait.Until(t, waitTimeout, "error close counted", func() bool { return s.Stats().ClosedForError == 1 })
}

func TestIdleTimeout(t *testing.T) {
	const idle = 150 * time.Millisecond
	var g gates
	var served atomic.Int64
	s, addr, _ := startServer(t, ServerConfig{IdleTimeout: idle}, gatedHandler(&g, &served))

	// The clock starts before the dial: the server may accept and arm its
	// idle deadline before our side of the handshake returns.
	start := time.Now()
	quiet := dial(t, addr)
	expectClosed(t, quiet)
	if el := time.Since(start); el < idle {
		t.Fatalf("closed after %v, before the idle timeout", el)
	}
	testwait.Until(t, waitTimeout, "idle close counted", func() bool { return s.Stats().ClosedIdle == 1 })

	// Waiting on our response is not idle, however long the Pending takes.
	busy := dial(t, addr)
	writeAll(t, busy, encodeRequest(metadataRequest(1), 5, nil))
	testwait.Until(t, waitTimeout, "request served", func() bool { return served.Load() == 1 })
	time.Sleep(3 * idle)
	close(g.get(5))
	if corrOf(readFrameRaw(t, busy)) != 5 {
		t.Fatal("wrong response")
	}
	expectClosed(t, busy) // and then, with nothing outstanding, it is idle
	if s.Stats().ClosedForError != 0 {
		t.Fatal("idle closes counted as errors")
	}
}

// TestWriteTimeoutFreesStuckConnection: a client that never reads cannot pin
// the writer forever.
func TestWriteTimeoutFreesStuckConnection(t *testing.T) {
	big := make([]byte, 32<<20)
	s, addr, _ := startServer(t, ServerConfig{WriteTimeout: 200 * time.Millisecond, SendBufferBytes: 64 << 10},
		HandlerFunc(func(*Request) Pending { return Ready(&Response{Body: big}) }))
	nc := dial(t, addr)
	_ = nc.(*net.TCPConn).SetReadBuffer(64 << 10)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	testwait.Until(t, waitTimeout, "stuck connection closed", func() bool { return s.Stats().ClosedForError == 1 })
	testwait.Until(t, waitTimeout, "no open connections", func() bool { return s.Stats().OpenConns == 0 })
}

func TestShutdownDrainsInFlight(t *testing.T) {
	var g gates
	var served atomic.Int64
	s, addr, _ := startServer(t, ServerConfig{}, gatedHandler(&g, &served))
	nc := dial(t, addr)
	idleConn := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	testwait.Until(t, waitTimeout, "request served", func() bool { return served.Load() == 1 })

	done := make(chan error, 1)
	go func() { done <- s.Shutdown(shutdownCtx(t, waitTimeout)) }()
	// The idle connection is closed at once; new connections are refused.
	expectClosed(t, idleConn)
	testwait.Until(t, waitTimeout, "listener closed", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	})
	// A request sent after shutdown started is not served.
	writeAll(t, nc, encodeRequest(metadataRequest(1), 2, nil))
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v before the in-flight response was written", err)
	default:
	}
	close(g.get(1))
	if corrOf(readFrameRaw(t, nc)) != 1 {
		t.Fatal("wrong response")
	}
	expectClosed(t, nc)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if served.Load() != 1 {
		t.Fatalf("served %d requests, the one after shutdown included", served.Load())
	}
	if err := s.Start(); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Start after Shutdown: %v", err)
	}
}

func TestShutdownDeadlineClosesStuckConnections(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(*Request) Pending {
		return func() *Response { <-release; return &Response{Body: []byte{1}} }
	}))
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	testwait.Until(t, waitTimeout, "request read", func() bool { return s.Stats().Requests == 1 })
	err := s.Shutdown(shutdownCtx(t, 100*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want deadline exceeded", err)
	}
	expectClosed(t, nc)
	if s.Stats().OpenConns != 0 {
		t.Fatal("connections left open")
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !contains(s, sub) {
			return false
		}
	}
	return true
}

// TestAnsweredResponsesKeepOrder: requests answered at once (Request.Answer,
// written from the reader when nothing is queued) interleaved with waiting
// ones come back in request order, and an answered request behind a
// waiting one waits its turn.
func TestAnsweredResponsesKeepOrder(t *testing.T) {
	const n = 30
	var g gates
	var served atomic.Int64
	h := HandlerFunc(func(req *Request) Pending {
		served.Add(1)
		corr := req.Header.CorrelationID
		body := binary.BigEndian.AppendUint32(nil, uint32(corr))
		if corr%3 != 0 {
			return req.Answer(&Response{Body: body})
		}
		ch := g.get(corr)
		return func() *Response {
			select {
			case <-ch:
			case <-time.After(waitTimeout):
			}
			return &Response{Body: body}
		}
	})
	_, addr, _ := startServer(t, ServerConfig{MaxQueuedPerConn: n}, h)
	nc := dial(t, addr)
	for i := int32(0); i < n; i++ {
		writeAll(t, nc, encodeRequest(metadataRequest(1), i, kmsg.StringPtr("p")))
	}
	// Every request is served (answered or pending) before any pending one
	// is released, last first, so the answers behind each must queue.
	testwait.Until(t, waitTimeout, "all requests served", func() bool { return served.Load() == n })
	for i := int32(n - 1); i >= 0; i-- {
		if i%3 == 0 {
			close(g.get(i))
		}
	}
	for i := int32(0); i < n; i++ {
		frame := readFrameRaw(t, nc)
		if got := corrOf(frame); got != i {
			t.Fatalf("response %d has correlation id %d", i, got)
		}
		if got := int32(binary.BigEndian.Uint32(frame[len(frame)-4:])); got != i {
			t.Fatalf("response %d carries body %d", i, got)
		}
	}
}

// TestAnsweredNoneCloseClosesConnection: an answered request with no
// response that asks to close (a failed acks=0 produce) closes the
// connection after the earlier answer went out.
func TestAnsweredNoneCloseClosesConnection(t *testing.T) {
	h := HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 0 {
			return req.Answer(&Response{Body: []byte{1, 2, 3}})
		}
		return req.Answer(&Response{None: true, Close: true})
	})
	_, addr, _ := startServer(t, ServerConfig{}, h)
	nc := dial(t, addr)
	writeAll(t, nc, append(encodeRequest(metadataRequest(1), 0, nil), encodeRequest(metadataRequest(1), 1, nil)...))
	if corrOf(readFrameRaw(t, nc)) != 0 {
		t.Fatal("wrong first response")
	}
	if rest := expectClosed(t, nc); len(rest) != 0 {
		t.Fatalf("%d bytes sent for the request without a response", len(rest))
	}
}
