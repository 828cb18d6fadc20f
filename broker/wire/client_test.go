package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func dialClient(t *testing.T, addr string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := Dial(ctx, addr, "kafgo-broker-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func reqCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestClientAgainstServer(t *testing.T) {
	var clientIDs sync.Map
	inner := kmsgHandler(t, echoResponse)
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		if req.Header.ClientID != nil {
			clientIDs.Store(*req.Header.ClientID, true)
		}
		return inner.Serve(req)
	}))
	c := dialClient(t, addr)
	tests := []struct {
		name  string
		req   kmsg.Request
		check func(kmsg.Response) error
	}{
		{"ApiVersions v0", apiVersionsRequest(0), checkAPIVersions},
		{"ApiVersions v3", apiVersionsRequest(3), checkAPIVersions},
		{"Metadata v1", metadataRequest(1, "x", "y"), checkTopics("x", "y")},
		{"Metadata v9", metadataRequest(9, "x", "y"), checkTopics("x", "y")},
		{"Metadata v12", metadataRequest(12, "z"), checkTopics("z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Request(reqCtx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetVersion() != tt.req.GetVersion() {
				t.Fatalf("response version %d", resp.GetVersion())
			}
			if err := tt.check(resp); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, ok := clientIDs.Load("kafgo-broker-1"); !ok {
		t.Fatal("client id not sent")
	}
}

func checkAPIVersions(r kmsg.Response) error {
	av := r.(*kmsg.ApiVersionsResponse)
	if av.ErrorCode != 0 || len(av.ApiKeys) != 2 || av.ApiKeys[1].ApiKey != 3 || av.ApiKeys[1].MaxVersion != 9 {
		return fmt.Errorf("ApiVersions response %+v", av)
	}
	return nil
}

func checkTopics(names ...string) func(kmsg.Response) error {
	return func(r kmsg.Response) error {
		md := r.(*kmsg.MetadataResponse)
		if len(md.Topics) != len(names) {
			return fmt.Errorf("%d topics, want %d", len(md.Topics), len(names))
		}
		for i, n := range names {
			if md.Topics[i].Topic == nil || *md.Topics[i].Topic != n {
				return fmt.Errorf("topic %d = %v, want %s", i, md.Topics[i].Topic, n)
			}
		}
		return nil
	}
}

// TestClientConcurrentCallers: many goroutines pipeline on one Client and
// each gets its own answer.
func TestClientConcurrentCallers(t *testing.T) {
	const callers, each = 8, 50
	_, addr, _ := startServer(t, ServerConfig{}, kmsgHandler(t, echoResponse))
	c := dialClient(t, addr)
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for g := 0; g < callers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			for i := 0; i < each; i++ {
				name := fmt.Sprintf("t-%d-%d", g, i)
				v := int16(1 + (g+i)%12) // flexible and not, interleaved
				resp, err := c.Request(ctx, metadataRequest(v, name))
				if err == nil {
					err = checkTopics(name)(resp)
				}
				if err != nil {
					errs <- fmt.Errorf("caller %d request %d: %w", g, i, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// fakeBroker serves one connection with reply, which gets each request and
// returns the raw response frame body (correlation id onward) to send.
func fakeBroker(t *testing.T, reply func(req *Request) []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		for {
			req, err := ReadRequest(nc, 0)
			if err != nil {
				return
			}
			out := reply(req)
			if out == nil {
				continue
			}
			if _, err := nc.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(out))), out...)); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// TestClientResponseHeaders: tagged fields in flexible response headers are
// skipped; ApiVersions' v0 header is not.
func TestClientResponseHeaders(t *testing.T) {
	addr := fakeBroker(t, func(req *Request) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(req.Header.CorrelationID))
		var resp kmsg.Response
		switch req.Header.APIKey {
		case 18:
			resp = echoResponse(req, kmsg.NewPtrApiVersionsRequest())
		default:
			md := kmsg.NewPtrMetadataRequest()
			md.SetVersion(req.Header.APIVersion)
			if err := md.ReadFrom(req.Body); err != nil {
				return nil
			}
			resp = echoResponse(req, md)
			if req.Header.Flexible {
				out = append(out, 2, 0, 3, 'a', 'b', 'c', 9, 1, 0) // two tagged fields
			}
		}
		resp.SetVersion(req.Header.APIVersion)
		return resp.AppendTo(out)
	})
	c := dialClient(t, addr)
	for _, req := range []kmsg.Request{apiVersionsRequest(3), metadataRequest(9, "tagged"), metadataRequest(8, "plain"), apiVersionsRequest(0)} {
		resp, err := c.Request(reqCtx(t), req)
		if err != nil {
			t.Fatalf("key %d v%d: %v", req.Key(), req.GetVersion(), err)
		}
		if av, ok := resp.(*kmsg.ApiVersionsResponse); ok {
			if err := checkAPIVersions(av); err != nil {
				t.Fatal(err)
			}
		} else if err := checkTopics(*req.(*kmsg.MetadataRequest).Topics[0].Topic)(resp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClientUnsupportedApiVersions: a broker that does not know our
// ApiVersions version answers in v0 with UNSUPPORTED_VERSION.
func TestClientUnsupportedApiVersions(t *testing.T) {
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(0)
		resp.ErrorCode = unsupportedVersion
		resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 2}}
		return Ready(&Response{Body: resp.AppendTo(nil)})
	}))
	c := dialClient(t, addr)
	resp, err := c.Request(reqCtx(t), apiVersionsRequest(3))
	if err != nil {
		t.Fatal(err)
	}
	av := resp.(*kmsg.ApiVersionsResponse)
	if av.Version != 0 || av.ErrorCode != unsupportedVersion || len(av.ApiKeys) != 1 || av.ApiKeys[0].MaxVersion != 2 {
		t.Fatalf("response %+v", av)
	}
}

func TestClientContextCancelKeepsConnection(t *testing.T) {
	var g gates
	var served atomic.Int64
	inner := kmsgHandler(t, echoResponse)
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		if req.Header.CorrelationID == 1 {
			served.Add(1)
			p := inner.Serve(req)
			return func() *Response { <-g.get(1); return p() }
		}
		return inner.Serve(req)
	}))
	c := dialClient(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Request(ctx, metadataRequest(9, "slow")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	close(g.get(1))
	// The late answer to the abandoned request is discarded, in order.
	resp, err := c.Request(reqCtx(t), metadataRequest(9, "next"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTopics("next")(resp); err != nil {
		t.Fatal(err)
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := c.Request(canceled, metadataRequest(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestClientProduceAcksZero(t *testing.T) {
	var produced atomic.Int64
	inner := kmsgHandler(t, echoResponse)
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(req *Request) Pending {
		if req.Header.APIKey == 0 {
			produced.Add(1)
		}
		return inner.Serve(req)
	}))
	c := dialClient(t, addr)
	p := kmsg.NewPtrProduceRequest()
	p.SetVersion(7)
	p.Acks = 0
	tp := kmsg.NewProduceRequestTopic()
	tp.Topic = "fire-and-forget"
	tp.Partitions = []kmsg.ProduceRequestTopicPartition{{Partition: 0, Records: []byte{1, 2, 3}}}
	p.Topics = []kmsg.ProduceRequestTopic{tp}
	resp, err := c.Request(reqCtx(t), p)
	if err != nil || resp != nil {
		t.Fatalf("acks=0 produce: %v, %v", resp, err)
	}
	md, err := c.Request(reqCtx(t), metadataRequest(1, "after"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTopics("after")(md); err != nil {
		t.Fatal(err)
	}
	if produced.Load() != 1 {
		t.Fatal("produce not delivered")
	}
}

func TestClientBrokenStreams(t *testing.T) {
	tests := []struct {
		name  string
		reply func(req *Request) []byte
	}{
		{"wrong correlation id", func(req *Request) []byte {
			return binary.BigEndian.AppendUint32(nil, uint32(req.Header.CorrelationID+1))
		}},
		{"bad response tags", func(req *Request) []byte {
			return append(binary.BigEndian.AppendUint32(nil, uint32(req.Header.CorrelationID)), 3, 0)
		}},
		{"undecodable body", func(req *Request) []byte {
			return append(binary.BigEndian.AppendUint32(nil, uint32(req.Header.CorrelationID)), 0, 0xff, 0xff, 0xff)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialClient(t, fakeBroker(t, tt.reply))
			_, err := c.Request(reqCtx(t), metadataRequest(9, "t"))
			if err == nil {
				t.Fatal("no error")
			}
			if !bytes.HasPrefix([]byte(err.Error()), []byte("wire: ")) {
				t.Fatalf("error not prefixed: %v", err)
			}
		})
	}
}

func TestClientCloseFailsOutstanding(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(*Request) Pending {
		return func() *Response { <-release; return &Response{None: true} }
	}))
	c := dialClient(t, addr)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Request(reqCtx(t), metadataRequest(1))
		errc <- err
	}()
	testwait.Until(t, waitTimeout, "request in flight", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.waiting) == 1
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrClientClosed) {
		t.Fatalf("outstanding request: %v", err)
	}
	if _, err := c.Request(reqCtx(t), metadataRequest(1)); !errors.Is(err, ErrClientClosed) {
		t.Fatalf("request after close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestClientServerHangsUp(t *testing.T) {
	_, addr, _ := startServer(t, ServerConfig{}, HandlerFunc(func(*Request) Pending {
		return Ready(&Response{Close: true})
	}))
	c := dialClient(t, addr)
	if _, err := c.Request(reqCtx(t), metadataRequest(1)); err == nil {
		t.Fatal("no error when the server closes")
	}
	if _, err := c.Request(reqCtx(t), metadataRequest(1)); err == nil {
		t.Fatal("no error on a dead connection")
	}
}

func TestDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	if _, err := Dial(reqCtx(t), addr, "x"); err == nil || !bytes.Contains([]byte(err.Error()), []byte(addr)) {
		t.Fatalf("Dial to a closed port: %v", err)
	}
}

// TestClientRequestFunc: the callback gets the decoded response (large
// enough to come from a pooled buffer), its error is returned, and many
// calls in a row each see their own response intact although the buffers
// are recycled between them.
func TestClientRequestFunc(t *testing.T) {
	_, addr, _ := startServer(t, ServerConfig{}, kmsgHandler(t, echoResponse))
	c := dialClient(t, addr)
	long := string(bytes.Repeat([]byte("t"), 3000))
	for i := range 20 {
		names := []string{fmt.Sprint(long, i), fmt.Sprint(long, i+1), fmt.Sprint(long, i+2)}
		calls := 0
		err := c.RequestFunc(reqCtx(t), metadataRequest(12, names...), func(r kmsg.Response) error {
			calls++
			return checkTopics(names...)(r)
		})
		if err != nil || calls != 1 {
			t.Fatalf("call %d: %v (callback ran %d times)", i, err, calls)
		}
	}
	stop := errors.New("stop")
	if err := c.RequestFunc(reqCtx(t), metadataRequest(12, "x"), func(kmsg.Response) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error %v", err)
	}
}
