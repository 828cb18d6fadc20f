package wire

import (
	"crypto/tls"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testwait"
)

// sentCounter is a SentHook counting its calls.
type sentCounter struct{ n atomic.Int32 }

func (s *sentCounter) ResponseSent() { s.n.Add(1) }

// TestResponseSentHook: the hook runs once the response is written
// (the client can read it by then), and for an acks=0 style None response
// once its turn passes.
func TestResponseSentHook(t *testing.T) {
	var hook sentCounter
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 2 {
			return Ready(&Response{None: true, Sent: &hook})
		}
		return Ready(&Response{Body: []byte{1}, Sent: &hook})
	}))
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 1, nil))
	readFrameRaw(t, nc)
	if got := hook.n.Load(); got != 1 {
		t.Fatalf("after a written response: %d calls", got)
	}
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 2, nil))
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 4, nil))
	readFrameRaw(t, nc) // correlation 4's: the None before it has passed
	testwait.Until(t, waitTimeout, "both hooks called", func() bool { return hook.n.Load() == 3 })
}

// TestListenerStats: connections are counted per listener (open,
// accepted, closed), and a failed TLS handshake counts as a failed
// authentication of its listener only.
func TestListenerStats(t *testing.T) {
	f := newTLSFixture(t)
	srvCfg := &tls.Config{Certificates: []tls.Certificate{f.server}}
	s, plainAddr, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{
		{Name: "PLAINTEXT", Addr: "127.0.0.1:0"},
		{Name: "SSL", Addr: "127.0.0.1:0", TLS: srvCfg},
	}}, kmsgHandler(t, echoResponse))
	byName := func() map[string]ListenerStats {
		out := map[string]ListenerStats{}
		for _, l := range s.ListenerStats() {
			out[l.Listener] = l
		}
		return out
	}
	a, b := dial(t, plainAddr), dial(t, plainAddr)
	writeAll(t, a, encodeRequest(apiVersionsRequest(3), 1, nil))
	readFrameRaw(t, a)
	writeAll(t, b, encodeRequest(apiVersionsRequest(3), 1, nil))
	readFrameRaw(t, b)
	_ = a.Close()
	testwait.Until(t, waitTimeout, "the closed connection counted", func() bool { return byName()["PLAINTEXT"].Closed == 1 })
	if p := byName()["PLAINTEXT"]; p.Accepted != 2 || p.OpenConns != 1 || p.AuthFailures != 0 {
		t.Fatalf("PLAINTEXT %+v", p)
	}

	nc := dial(t, s.Addr("SSL").String())
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 1, kmsg.StringPtr("plain")))
	expectClosed(t, nc)
	testwait.Until(t, waitTimeout, "the TLS failure counted", func() bool { return byName()["SSL"].AuthFailures == 1 })
	if ssl, p := byName()["SSL"], byName()["PLAINTEXT"]; ssl.Accepted != 1 || p.AuthFailures != 0 {
		t.Fatalf("SSL %+v PLAINTEXT %+v", ssl, p)
	}
	if st := s.Stats(); st.Accepted != 3 || st.TLSFailures != 1 {
		t.Fatalf("server stats %+v", st)
	}
}

// TestReaderTime: a connection whose client sends nothing is idle nearly
// all its life; one whose requests keep its reader in the handler is not.
func TestReaderTime(t *testing.T) {
	const hold = 300 * time.Millisecond
	s, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 2 {
			time.Sleep(hold) // a slow handler: the reader is busy
		}
		return Ready(&Response{Body: []byte{1}})
	}))
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 1, nil))
	readFrameRaw(t, nc)
	time.Sleep(hold)
	idle, live := s.ReaderTime()
	if live < hold || idle < hold*8/10 || idle > live {
		t.Fatalf("quiet connection: idle %v of %v", idle, live)
	}
	writeAll(t, nc, encodeRequest(apiVersionsRequest(3), 2, nil))
	readFrameRaw(t, nc)
	idle2, live2 := s.ReaderTime()
	if dl, di := live2-live, idle2-idle; dl < hold || di > dl/2 {
		t.Fatalf("busy connection: idle grew %v while live grew %v", di, dl)
	}
	// Closed connections keep their time.
	_ = nc.Close()
	testwait.Until(t, waitTimeout, "the connection closed", func() bool { return s.Stats().OpenConns == 0 })
	idle3, live3 := s.ReaderTime()
	if live3 < live2 || idle3 < idle2 {
		t.Fatalf("after close: idle %v live %v, before %v %v", idle3, live3, idle2, live2)
	}
	time.Sleep(20 * time.Millisecond)
	if _, live4 := s.ReaderTime(); live4 != live3 {
		t.Fatalf("live time grows without connections: %v -> %v", live3, live4)
	}
}
