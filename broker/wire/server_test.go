package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// countingEcho answers every request with a fixed body and counts them.
func countingEcho(n *atomic.Int64) Handler {
	return HandlerFunc(func(req *Request) Pending {
		n.Add(1)
		return Ready(&Response{Body: []byte{1, 2, 3}})
	})
}

// checkServes asserts a fresh connection still gets an answer.
func checkServes(t *testing.T, addr string) {
	t.Helper()
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 77, kmsg.StringPtr("probe")))
	got := readFrameRaw(t, nc)
	if corr := int32(binary.BigEndian.Uint32(got)); corr != 77 {
		t.Fatalf("probe answered with correlation id %d", corr)
	}
	_ = nc.Close()
}

func TestFrameEdgeCasesCloseConnection(t *testing.T) {
	var served atomic.Int64
	s, addr, _ := startServer(t, ServerConfig{MaxRequestSize: 1 << 20}, countingEcho(&served))
	clientID := []byte{0, 1, 'c'}
	tests := []struct {
		name      string
		send      []byte
		closeSend bool // half-close after sending (truncation then EOF)
		isError   bool // counted in ClosedForError
	}{
		{name: "2 GiB size", send: sizePrefix(1<<31 - 1), isError: true},
		{name: "just over max", send: sizePrefix(1<<20 + 1), isError: true},
		{name: "negative size", send: sizePrefix(-5), isError: true},
		{name: "zero size", send: sizePrefix(0), isError: true},
		{name: "size below header", send: append(sizePrefix(4), 0, 3, 0, 1), isError: true},
		{name: "truncated header", send: rawRequest(3, 1, 1, []byte{0, 50, 'x'}), isError: true},
		{name: "bad tagged fields", send: rawRequest(3, 9, 1, append(clientID, 5, 0)), isError: true},
		{name: "truncated body then EOF", send: append(sizePrefix(100), make([]byte, 50)...), closeSend: true, isError: true},
		{name: "truncated size then EOF", send: []byte{0, 0}, closeSend: true, isError: true},
		{name: "HTTP garbage", send: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), isError: true},
		{name: "TLS hello garbage", send: []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03}, isError: true},
		{name: "clean EOF", send: nil, closeSend: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Stats()
			nc := dial(t, addr)
			if len(tt.send) > 0 {
				writeAll(t, nc, tt.send)
			}
			if tt.closeSend {
				_ = nc.(*net.TCPConn).CloseWrite()
			}
			if got := expectClosed(t, nc); len(got) != 0 {
				t.Fatalf("server sent %d bytes before closing", len(got))
			}
			if tt.isError {
				testwait.Until(t, waitTimeout, "ClosedForError to grow", func() bool { return s.Stats().ClosedForError > before.ClosedForError })
			}
			checkServes(t, addr)
		})
	}
	if n := served.Load(); n != int64(len(tests)) {
		t.Fatalf("handler saw %d requests, want only the %d probes", n, len(tests))
	}
}

// TestOversizeRejectedBeforeAllocating: a 2 GiB size is refused on the size
// field alone, logged at info with the remote address and size.
func TestOversizeRejectedBeforeAllocating(t *testing.T) {
	var served atomic.Int64
	s, addr, logs := startServer(t, ServerConfig{MaxRequestSize: 1 << 30}, countingEcho(&served))
	tests := []struct {
		name string
		size int32
		send int // body bytes actually sent
	}{
		{name: "2 GiB over the limit", size: 1<<31 - 1},
		// Within the limit but never sent: memory must follow what arrives.
		{name: "1 GiB announced, 4 KiB sent", size: 1 << 30, send: 4 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			nc := dial(t, addr)
			writeAll(t, nc, append(sizePrefix(tt.size), make([]byte, tt.send)...))
			if tt.send > 0 {
				_ = nc.(*net.TCPConn).CloseWrite()
			}
			local := nc.LocalAddr().String()
			expectClosed(t, nc)
			testwait.Until(t, waitTimeout, "connection closed", func() bool { return s.Stats().OpenConns == 0 })
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
				t.Fatalf("allocated %d MiB while rejecting", d>>20)
			}
			if tt.send == 0 {
				out := logs.String()
				if !strings.Contains(out, "level=INFO") || !strings.Contains(out, local) || !strings.Contains(out, fmt.Sprint(tt.size)) {
					t.Fatalf("oversize not logged at info with remote %s and size:\n%s", local, out)
				}
			}
		})
	}
	if served.Load() != 0 {
		t.Fatal("handler was called")
	}
}

// TestHeadersRoundTrip sends real kmsg-encoded requests, checks the handler
// sees the right header and a body kmsg decodes, and that response headers
// follow the flexible rule (with the ApiVersions v0 exception).
func TestHeadersRoundTrip(t *testing.T) {
	var seen atomic.Pointer[RequestHeader]
	inner := kmsgHandler(t, echoResponse)
	h := HandlerFunc(func(req *Request) Pending {
		hd := req.Header
		seen.Store(&hd)
		return inner.Serve(req)
	})
	_, addr, _ := startServer(t, ServerConfig{}, h)

	produce := func(v int16) kmsg.Request {
		req := kmsg.NewPtrProduceRequest()
		req.SetVersion(v)
		req.Acks = -1
		req.TimeoutMillis = 1000
		tp := kmsg.NewProduceRequestTopic()
		tp.Topic = "orders"
		part := kmsg.NewProduceRequestTopicPartition()
		part.Partition = 3
		part.Records = bytes.Repeat([]byte{0xab}, 61)
		tp.Partitions = append(tp.Partitions, part)
		req.Topics = append(req.Topics, tp)
		return req
	}
	type tc struct {
		name     string
		req      kmsg.Request
		clientID *string
	}
	tests := []tc{
		{"ApiVersions v0", apiVersionsRequest(0), kmsg.StringPtr("cli")},
		{"ApiVersions v3", apiVersionsRequest(3), kmsg.StringPtr("cli")},
		{"Metadata v1", metadataRequest(1, "a", "b"), kmsg.StringPtr("cli")},
		{"Metadata v9", metadataRequest(9, "a", "b"), kmsg.StringPtr("cli")},
		{"Metadata v9 null client id", metadataRequest(9, "a"), nil},
	}
	for v := int16(3); v <= 9; v++ {
		tests = append(tests, tc{fmt.Sprintf("Produce v%d", v), produce(v), kmsg.StringPtr("producer-1")})
	}
	nc := dial(t, addr)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			corr := int32(1000 + i)
			writeAll(t, nc, encodeRequest(tt.req, corr, tt.clientID))
			frame := readFrameRaw(t, nc)
			got := seen.Load()
			if got.APIKey != tt.req.Key() || got.APIVersion != tt.req.GetVersion() || got.CorrelationID != corr {
				t.Fatalf("header %+v", got)
			}
			if got.Flexible != tt.req.IsFlexible() {
				t.Fatalf("Flexible = %v, kmsg says %v", got.Flexible, tt.req.IsFlexible())
			}
			if (got.ClientID == nil) != (tt.clientID == nil) || (got.ClientID != nil && *got.ClientID != *tt.clientID) {
				t.Fatalf("client id %v, want %v", got.ClientID, tt.clientID)
			}
			if c := int32(binary.BigEndian.Uint32(frame)); c != corr {
				t.Fatalf("response correlation id %d, want %d", c, corr)
			}
			body := frame[4:]
			wantTag := tt.req.IsFlexible() && tt.req.Key() != 18
			if wantTag {
				if body[0] != 0 {
					t.Fatalf("flexible response header tag byte %#x", body[0])
				}
				body = body[1:]
			}
			resp := tt.req.ResponseKind()
			resp.SetVersion(tt.req.GetVersion())
			if err := resp.ReadFrom(body); err != nil {
				t.Fatalf("decode response (header tag byte expected: %v): %v", wantTag, err)
			}
			switch r := resp.(type) {
			case *kmsg.ApiVersionsResponse:
				if len(r.ApiKeys) != 2 || r.ApiKeys[0].MaxVersion != 3 {
					t.Fatalf("api keys %+v", r.ApiKeys)
				}
			case *kmsg.MetadataResponse:
				req := tt.req.(*kmsg.MetadataRequest)
				if len(r.Topics) != len(req.Topics) || *r.Topics[0].Topic != *req.Topics[0].Topic || r.ControllerID != 7 {
					t.Fatalf("metadata response %+v", r)
				}
			case *kmsg.ProduceResponse:
				if len(r.Topics) != 1 || r.Topics[0].Topic != "orders" || r.Topics[0].Partitions[0].BaseOffset != 61 {
					t.Fatalf("produce response %+v", r)
				}
			}
		})
	}
}

// TestHeaderVariantsReachHandler covers headers kmsg's formatter does not
// produce: tagged fields in the request header, header v0, unknown keys and
// too-new versions.
func TestHeaderVariantsReachHandler(t *testing.T) {
	var got atomic.Pointer[Request]
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		got.Store(req)
		return Ready(&Response{Body: []byte{9, 9}})
	}))
	mdBody := metadataRequest(9, "t").AppendTo(nil)
	clientID := []byte{0, 2, 'i', 'd'}
	cat := func(p ...[]byte) []byte { return bytes.Join(p, nil) }
	tests := []struct {
		name     string
		frame    []byte
		wantFlex bool
		wantBody []byte
		respTag  bool
	}{
		{name: "Metadata v9 header with tagged fields", frame: rawRequest(3, 9, 1, cat(clientID, []byte{2, 0, 2, 'a', 'b', 5, 0}, mdBody)), wantFlex: true, wantBody: mdBody, respTag: true},
		{name: "ControlledShutdown v0 header v0", frame: rawRequest(7, 0, 2, []byte{0, 0, 0, 1}), wantBody: []byte{0, 0, 0, 1}},
		{name: "unknown key", frame: rawRequest(999, 0, 3, cat(clientID, []byte{7})), wantBody: []byte{7}},
		{name: "ApiVersions v99", frame: rawRequest(18, 99, 4, cat(clientID, []byte{0, 7})), wantFlex: true, wantBody: []byte{7}},
	}
	nc := dial(t, addr)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeAll(t, nc, tt.frame)
			resp := readFrameRaw(t, nc)
			req := got.Load()
			if req.Header.Flexible != tt.wantFlex || !bytes.Equal(req.Body, tt.wantBody) {
				t.Fatalf("flexible %v body %x; want %v %x", req.Header.Flexible, req.Body, tt.wantFlex, tt.wantBody)
			}
			if req.Conn == nil || req.Conn.Listener != "PLAINTEXT" || req.Conn.Remote.String() != nc.LocalAddr().String() || req.Received.IsZero() {
				t.Fatalf("conn info %+v received %v", req.Conn, req.Received)
			}
			want := binary.BigEndian.AppendUint32(nil, uint32(req.Header.CorrelationID))
			if tt.respTag {
				want = append(want, 0)
			}
			want = append(want, 9, 9)
			if !bytes.Equal(resp, want) {
				t.Fatalf("response %x, want %x", resp, want)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		name      string
		listeners []ListenerConfig
		wantInErr string
	}{
		{"address in use", []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}, {Name: "INTERNAL", Addr: taken.Addr().String()}}, "INTERNAL"},
		{"duplicate name", []ListenerConfig{{Name: "A", Addr: "127.0.0.1:0"}, {Name: "A", Addr: "127.0.0.1:0"}}, "duplicate"},
		{"no name", []ListenerConfig{{Name: "", Addr: "127.0.0.1:0"}}, "no name"},
		{"none", nil, "no listeners"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewServer(ServerConfig{Listeners: tt.listeners}, HandlerFunc(func(*Request) Pending { return nil }))
			err := s.Start()
			if err == nil || !strings.Contains(err.Error(), tt.wantInErr) || !strings.HasPrefix(err.Error(), "wire: ") {
				t.Fatalf("err = %v, want mention of %q", err, tt.wantInErr)
			}
			if s.Addr("PLAINTEXT") != nil {
				t.Fatal("listener left bound after a failed start")
			}
		})
	}
}

func TestMultipleListeners(t *testing.T) {
	var served atomic.Int64
	var lastListener atomic.Value
	h := HandlerFunc(func(req *Request) Pending {
		served.Add(1)
		lastListener.Store(req.Conn.Listener)
		return Ready(&Response{Body: []byte{0}})
	})
	s, _, _ := startServer(t, ServerConfig{Listeners: []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}, {Name: "INTERNAL", Addr: "127.0.0.1:0"}}}, h)
	for _, name := range []string{"PLAINTEXT", "INTERNAL"} {
		nc := dial(t, s.Addr(name).String())
		writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
		readFrameRaw(t, nc)
		if got := lastListener.Load(); got != name {
			t.Fatalf("request on %s reported listener %v", name, got)
		}
	}
	if s.Addr("nope") != nil {
		t.Fatal("unknown listener has an address")
	}
	if err := s.Start(); err == nil {
		t.Fatal("second Start succeeded")
	}
}

func TestStatsCount(t *testing.T) {
	var served atomic.Int64
	s, addr, _ := startServer(t, ServerConfig{}, countingEcho(&served))
	nc := dial(t, addr)
	req := encodeRequest(metadataRequest(1), 1, kmsg.StringPtr("x"))
	for i := 0; i < 3; i++ {
		writeAll(t, nc, req)
		readFrameRaw(t, nc)
	}
	// The writer counts a response's bytes after they are on the socket,
	// so the client can read the last one before it is counted.
	wantOut := uint64(3 * (4 + 4 + 3))
	testwait.Until(t, waitTimeout, "the last response counted", func() bool { return s.Stats().BytesOut >= wantOut })
	st := s.Stats()
	if st.Accepted != 1 || st.OpenConns != 1 || st.Requests != 3 {
		t.Fatalf("stats %+v", st)
	}
	if st.BytesIn != uint64(3*len(req)) || st.BytesOut != wantOut {
		t.Fatalf("bytes in %d out %d", st.BytesIn, st.BytesOut)
	}
	_ = nc.Close()
	testwait.Until(t, waitTimeout, "open conns to drop", func() bool { return s.Stats().OpenConns == 0 })
	if s.Stats().ClosedForError != 0 {
		t.Fatal("clean close counted as error")
	}
}

// shutdownCtx returns a context for Shutdown bounded by the wait limit.
func shutdownCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
