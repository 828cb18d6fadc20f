package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testlog"
)

// waitTimeout bounds every wait in these tests.
const waitTimeout = 10 * time.Second

// syncBuffer collects log output from server goroutines safely, and outlives
// the test (testing.T's log must not be used after a test ends).
type syncBuffer = testlog.Buffer

// startServer starts a server with one PLAINTEXT listener on a free port and
// shuts it down when the test ends. It returns the server, its address and
// the captured log.
func startServer(t testing.TB, cfg ServerConfig, h Handler) (*Server, string, *syncBuffer) {
	t.Helper()
	return startServerWith(t, cfg, h, nil)
}

// startServerWith is startServer with prepare run on the server before it
// starts (to set test hooks).
func startServerWith(t testing.TB, cfg ServerConfig, h Handler, prepare func(*Server)) (*Server, string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if len(cfg.Listeners) == 0 {
		cfg.Listeners = []ListenerConfig{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}
	}
	s := NewServer(cfg, h)
	if prepare != nil {
		prepare(s)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s, s.Addr(cfg.Listeners[0].Name).String(), logs
}

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, waitTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return nc
}

// encodeRequest frames req as kmsg's RequestFormatter does for real clients.
func encodeRequest(req kmsg.Request, corr int32, clientID *string) []byte {
	var f *kmsg.RequestFormatter
	if clientID != nil {
		f = kmsg.NewRequestFormatter(kmsg.FormatterClientID(*clientID))
	} else {
		f = kmsg.NewRequestFormatter()
	}
	return f.AppendRequest(nil, req, corr)
}

func writeAll(t testing.TB, nc net.Conn, b []byte) {
	t.Helper()
	_ = nc.SetWriteDeadline(time.Now().Add(waitTimeout))
	if _, err := nc.Write(b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// readFrameRaw reads one response frame (without its size) from nc.
func readFrameRaw(t testing.TB, nc net.Conn) []byte {
	t.Helper()
	_ = nc.SetReadDeadline(time.Now().Add(waitTimeout))
	var size [4]byte
	if _, err := io.ReadFull(nc, size[:]); err != nil {
		t.Fatalf("read response size: %v", err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 512<<20 {
		t.Fatalf("response size %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(nc, buf); err != nil {
		t.Fatalf("read response body: %v", err)
	}
	return buf
}

// expectClosed asserts the server closes nc (EOF or reset) within the wait
// bound, discarding anything it sends first; it returns what was discarded.
func expectClosed(t testing.TB, nc net.Conn) []byte {
	t.Helper()
	_ = nc.SetReadDeadline(time.Now().Add(waitTimeout))
	var got []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := nc.Read(buf)
		got = append(got, buf[:n]...)
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			return got
		}
		t.Fatalf("connection not closed by server: %v", err)
		return got
	}
}

// kmsgHandler decodes each request with kmsg and answers with respond's
// response, encoded at the request's version. Decode failures are test
// errors and close the connection.
func kmsgHandler(t testing.TB, respond func(*Request, kmsg.Request) kmsg.Response) Handler {
	return HandlerFunc(func(req *Request) Pending {
		kreq := kmsg.RequestForKey(req.Header.APIKey)
		if kreq == nil {
			t.Errorf("unknown key %d", req.Header.APIKey)
			return Ready(&Response{Close: true})
		}
		kreq.SetVersion(req.Header.APIVersion)
		if err := kreq.ReadFrom(req.Body); err != nil {
			t.Errorf("decode key %d v%d: %v", req.Header.APIKey, req.Header.APIVersion, err)
			return Ready(&Response{Close: true})
		}
		resp := respond(req, kreq)
		if resp == nil {
			return Ready(&Response{None: true})
		}
		resp.SetVersion(req.Header.APIVersion)
		return Ready(&Response{Body: resp.AppendTo(nil)})
	})
}

// echoResponse builds a response that reflects the request, so tests can
// check a round trip field by field.
func echoResponse(_ *Request, kreq kmsg.Request) kmsg.Response {
	switch r := kreq.(type) {
	case *kmsg.ApiVersionsRequest:
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{
			{ApiKey: 18, MinVersion: 0, MaxVersion: 3},
			{ApiKey: 3, MinVersion: 0, MaxVersion: 9},
		}
		return resp
	case *kmsg.MetadataRequest:
		resp := kmsg.NewPtrMetadataResponse()
		resp.ControllerID = 7
		for _, tp := range r.Topics {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic = tp.Topic
			resp.Topics = append(resp.Topics, mt)
		}
		return resp
	case *kmsg.ProduceRequest:
		if r.Acks == 0 {
			return nil
		}
		resp := kmsg.NewPtrProduceResponse()
		for _, tp := range r.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = tp.Topic
			for _, p := range tp.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition = p.Partition
				rp.BaseOffset = int64(len(p.Records))
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	default:
		return kreq.ResponseKind()
	}
}

func metadataRequest(version int16, topics ...string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(version)
	for _, name := range topics {
		tp := kmsg.NewMetadataRequestTopic()
		tp.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, tp)
	}
	return req
}

func apiVersionsRequest(version int16) *kmsg.ApiVersionsRequest {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(version)
	req.ClientSoftwareName = "kafgo-test"
	req.ClientSoftwareVersion = "1.0"
	return req
}

// tempFile writes n pseudo-random bytes to a temp file and returns it open
// for reading along with its contents.
func tempFile(t testing.TB, n int) (*os.File, []byte) {
	t.Helper()
	data := make([]byte, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range data {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		data[i] = byte(x)
	}
	path := t.TempDir() + "/segment.log"
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f, data
}

// rawRequest builds a request frame by hand (for headers kmsg cannot produce).
func rawRequest(key, version int16, corr int32, rest []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(rest)))
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	return append(b, rest...)
}

// osFileSentinel is a non-nil *os.File for parts that must be rejected before
// any file access.
var osFileSentinel os.File

func contains(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }
