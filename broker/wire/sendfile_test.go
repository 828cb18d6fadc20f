package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"

	"kafgo/internal/testing/testwait"
)

// partsHandler answers each request with parts(req).
func partsHandler(parts func(corr int32) []Part) Handler {
	return HandlerFunc(func(req *Request) Pending {
		return Ready(&Response{Parts: parts(req.Header.CorrelationID)})
	})
}

// expected is what the given parts should put on the wire as a body.
func expected(data []byte, parts []Part) []byte {
	var out []byte
	for _, p := range parts {
		if p.File == nil {
			out = append(out, p.Bytes...)
		} else {
			out = append(out, data[p.Offset:p.Offset+p.Length]...)
		}
	}
	return out
}

var sendModes = []struct {
	name    string
	disable bool
}{{"sendfile", false}, {"pread", true}}

func TestFilePartsByteExact(t *testing.T) {
	f, data := tempFile(t, 8<<20)
	parts := []Part{
		{Bytes: []byte("header")},
		{File: f, Offset: 100, Length: 1 << 20},
		{Bytes: []byte("between")},
		{File: f, Offset: 5 << 20, Length: 3 << 20}, // to the very end of the file
		{File: f, Offset: 0, Length: 0},
		{File: f, Offset: 7, Length: 1},
		{Bytes: []byte("trailer")},
	}
	want := expected(data, parts)
	for _, mode := range sendModes {
		t.Run(mode.name, func(t *testing.T) {
			// The shared file offset must be left alone.
			if _, err := f.Seek(12345, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			s, addr, _ := startServer(t, ServerConfig{DisableSendfile: mode.disable}, partsHandler(func(int32) []Part { return parts }))
			nc := dial(t, addr)
			for i := int32(0); i < 2; i++ {
				writeAll(t, nc, encodeRequest(metadataRequest(1), i, nil))
				frame := readFrameRaw(t, nc)
				if corrOf(frame) != i || !bytes.Equal(frame[4:], want) {
					t.Fatalf("response %d: %d bytes, want %d, equal %v", i, len(frame)-4, len(want), bytes.Equal(frame[4:], want))
				}
			}
			if pos, _ := f.Seek(0, io.SeekCurrent); pos != 12345 {
				t.Fatalf("file offset moved to %d", pos)
			}
			// Bytes are counted once written, possibly after the client read them.
			wantOut := uint64(2 * (8 + len(want)))
			testwait.Until(t, waitTimeout, "the last response counted", func() bool { return s.Stats().BytesOut >= wantOut })
			if st := s.Stats(); st.BytesOut != wantOut {
				t.Fatalf("BytesOut %d, want %d", st.BytesOut, wantOut)
			}
		})
	}
}

// TestFilePartsConcurrent: many connections send overlapping regions of one
// *os.File at the same time.
func TestFilePartsConcurrent(t *testing.T) {
	const conns, perConn = 8, 6
	f, data := tempFile(t, 4<<20)
	region := func(corr int32) []Part {
		off := int64(corr%7) * 300001
		return []Part{{Bytes: []byte{byte(corr)}}, {File: f, Offset: off, Length: 1<<20 + int64(corr)*4099}}
	}
	for _, mode := range sendModes {
		t.Run(mode.name, func(t *testing.T) {
			_, addr, _ := startServer(t, ServerConfig{DisableSendfile: mode.disable}, partsHandler(region))
			var wg sync.WaitGroup
			errs := make(chan error, conns)
			for c := 0; c < conns; c++ {
				nc := dial(t, addr)
				wg.Add(1)
				go func(c int) {
					defer wg.Done()
					// Pipeline all requests, then read all responses.
					var batch []byte
					for i := 0; i < perConn; i++ {
						batch = append(batch, encodeRequest(metadataRequest(1), int32(c*perConn+i), nil)...)
					}
					if _, err := nc.Write(batch); err != nil {
						errs <- err
						return
					}
					for i := 0; i < perConn; i++ {
						corr := int32(c*perConn + i)
						req, err := readResponse(nc)
						if err != nil {
							errs <- err
							return
						}
						if corrOf(req) != corr || !bytes.Equal(req[4:], expected(data, region(corr))) {
							errs <- fmt.Errorf("conn %d response %d corrupt", c, i)
							return
						}
					}
				}(c)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// readResponse is readFrameRaw for goroutines (no testing.T).
func readResponse(nc net.Conn) ([]byte, error) {
	var sizeBuf [4]byte
	return readFrame(nc, &sizeBuf, 4, 64<<20)
}

// TestFilePartsOverPipe: a net.Conn that is not a *net.TCPConn uses pread.
func TestFilePartsOverPipe(t *testing.T) {
	f, data := tempFile(t, 1<<20)
	srv := NewServer(ServerConfig{}, nil)
	server, client := net.Pipe()
	defer client.Close()
	c := newConn(srv, &listener{name: "PIPE"}, server)
	parts := []Part{{Bytes: []byte("x")}, {File: f, Offset: 3, Length: 700000}, {Bytes: []byte("y")}}
	errc := make(chan error, 1)
	go func() {
		bw := bufio.NewWriter(&c.cw)
		errc <- c.writeResponse(bw, item{corr: 4, flexResp: true}, &Response{Parts: parts})
		_ = server.Close()
	}()
	got, err := io.ReadAll(client)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("writeResponse: %v", err)
	}
	want := appendResponseHeader(nil, 4, true, int64(len(expected(data, parts))))
	want = append(want, expected(data, parts)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}

// TestTruncatedFileClosesConnection: the frame length is already sent, so a
// short file region can only end the connection.
func TestTruncatedFileClosesConnection(t *testing.T) {
	for _, mode := range sendModes {
		t.Run(mode.name, func(t *testing.T) {
			f, _ := tempFile(t, 1<<20)
			parts := []Part{{File: f, Offset: 1<<20 - 1000, Length: 5000}}
			s, addr, _ := startServer(t, ServerConfig{DisableSendfile: mode.disable}, partsHandler(func(int32) []Part { return parts }))
			nc := dial(t, addr)
			writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
			got := expectClosed(t, nc)
			if len(got) != 8+1000 {
				t.Fatalf("received %d bytes, want header + the 1000 bytes that exist", len(got))
			}
			testwait.Until(t, waitTimeout, "error close counted", func() bool { return s.Stats().ClosedForError == 1 })
			checkServesWithFile(t, addr)
		})
	}
}

func checkServesWithFile(t *testing.T, addr string) {
	t.Helper()
	nc := dial(t, addr)
	writeAll(t, nc, encodeRequest(metadataRequest(1), 2, nil))
	expectClosed(t, nc) // same handler: also truncated, but the server is alive
}

// TestClosedFileClosesConnection: a segment closed under a pending send fails
// that connection only.
func TestClosedFileClosesConnection(t *testing.T) {
	for _, mode := range sendModes {
		t.Run(mode.name, func(t *testing.T) {
			f, _ := tempFile(t, 1<<10)
			g, err := os.Open(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			_ = g.Close()
			s, addr, _ := startServer(t, ServerConfig{DisableSendfile: mode.disable}, partsHandler(func(int32) []Part {
				return []Part{{File: g, Offset: 0, Length: 10}}
			}))
			nc := dial(t, addr)
			writeAll(t, nc, encodeRequest(metadataRequest(1), 1, nil))
			expectClosed(t, nc)
			testwait.Until(t, waitTimeout, "error close counted", func() bool { return s.Stats().ClosedForError == 1 })
		})
	}
}
