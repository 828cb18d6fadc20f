package wire

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// muteHandler answers every request at once with its correlation id; the
// Pending of correlation id 0 mutes the connection for mute first, as a
// throttled response does. It records when each request was served.
type muteHandler struct {
	mute time.Duration

	mu     sync.Mutex
	served map[int32]time.Time
	muted  time.Time
}

func (h *muteHandler) Serve(req *Request) Pending {
	corr := req.Header.CorrelationID
	h.mu.Lock()
	h.served[corr] = time.Now()
	h.mu.Unlock()
	return func() *Response {
		if corr == 0 {
			until := time.Now().Add(h.mute)
			req.Conn.MuteUntil(until)
			req.Conn.MuteUntil(until.Add(-time.Hour)) // an earlier deadline never shortens it
			h.mu.Lock()
			h.muted = until
			h.mu.Unlock()
		}
		return &Response{Body: binary.BigEndian.AppendUint32(nil, uint32(corr))}
	}
}

func (h *muteHandler) servedAt(corr int32) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.served[corr]
	return t, ok
}

// TestMuteHoldsNextRequest: the throttled response goes out at once
// (KIP-219), and the connection's next request is not served before the
// mute ends; then it is.
func TestMuteHoldsNextRequest(t *testing.T) {
	h := &muteHandler{mute: time.Second, served: map[int32]time.Time{}}
	s, addr, _ := startServer(t, ServerConfig{}, h)
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 0, nil))
	if corrOf(readFrameRaw(t, nc)) != 0 {
		t.Fatal("wrong first response")
	}
	h.mu.Lock()
	until := h.muted
	h.mu.Unlock()
	if !time.Now().Before(until) {
		t.Fatalf("the throttled response arrived only after the mute ended (%v)", until)
	}
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
	if corrOf(readFrameRaw(t, nc)) != 1 {
		t.Fatal("wrong second response")
	}
	served, ok := h.servedAt(1)
	if !ok || served.Before(until) {
		t.Fatalf("request 1 served at %v, before the mute ended at %v", served, until)
	}
	if st := s.Stats(); st.Muted == 0 {
		t.Fatalf("stats %+v: no request counted as held by a mute", st)
	}
}

// TestShutdownEndsMute: a reader holding a request for a long mute lets
// Shutdown finish at once, without serving the request (the leak check in
// TestMain sees the goroutine gone).
func TestShutdownEndsMute(t *testing.T) {
	h := &muteHandler{mute: time.Hour, served: map[int32]time.Time{}}
	s := NewServer(ServerConfig{Listeners: []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, h)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	nc := dial(t, s.Addr("PLAINTEXT").String())
	writeAll(t, nc, encodeRequest(metadataRequest(1), 0, kmsg.StringPtr("c")))
	readFrameRaw(t, nc)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 1, kmsg.StringPtr("c")))
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a muted connection: %v", err)
	}
	if _, ok := h.servedAt(1); ok {
		t.Fatal("the muted request was served during shutdown")
	}
	expectClosed(t, nc)
}
