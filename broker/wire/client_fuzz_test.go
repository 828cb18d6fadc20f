package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// panickyResponse is a response whose decoding panics, standing in for
// input kmsg did not foresee.
type panickyResponse struct{ *kmsg.MetadataResponse }

func (panickyResponse) ReadFrom([]byte) error { panic("index out of range [7] with length 3") }

type panickyRequest struct{ *kmsg.MetadataRequest }

func (panickyRequest) ResponseKind() kmsg.Response {
	return panickyResponse{kmsg.NewPtrMetadataResponse()}
}

// TestDecodeResponseRecoversPanic: a response whose decoding panics is an
// ErrMalformedResponse for that request, not a crash of the goroutine (a
// replica fetcher, the controller's sender) that asked.
func TestDecodeResponseRecoversPanic(t *testing.T) {
	req := panickyRequest{kmsg.NewPtrMetadataRequest()}
	resp, err := decodeResponse(req, []byte{1, 2, 3})
	if resp != nil || !errors.Is(err, ErrMalformedResponse) {
		t.Fatalf("decodeResponse = %v, %v; want ErrMalformedResponse", resp, err)
	}
}

// pipeClient is a Client over an in-memory pipe whose peer answers each
// request with answer(request header key, correlation id): the body to send
// back after the response header.
func pipeClient(t *testing.T, answer func(key int16) []byte) *Client {
	t.Helper()
	cside, sside := net.Pipe()
	c := NewClient(cside, "fuzz")
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReader(sside)
		var size [4]byte
		for {
			frame, err := readFrame(br, &size, MinFrameSize, 1<<20)
			if err != nil {
				return
			}
			key := int16(binary.BigEndian.Uint16(frame))
			version := int16(binary.BigEndian.Uint16(frame[2:]))
			corr := binary.BigEndian.Uint32(frame[4:])
			out := binary.BigEndian.AppendUint32(nil, corr)
			if ResponseFlexible(key, RequestFlexible(key, version)) {
				out = append(out, 0) // no tagged fields
			}
			out = append(out, answer(key)...)
			msg := binary.BigEndian.AppendUint32(nil, uint32(len(out)))
			if _, err := sside.Write(append(msg, out...)); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		sside.Close()
		<-done
	})
	return c
}

// clientRequests are the requests the broker's own clients send (replica
// fetchers, the controller, inter-broker calls), at the versions they use.
func clientRequests() []kmsg.Request {
	var out []kmsg.Request
	add := func(r kmsg.Request, v int16) { r.SetVersion(v); out = append(out, r) }
	add(kmsg.NewPtrFetchRequest(), 12)
	add(kmsg.NewPtrListOffsetsRequest(), 5)
	add(kmsg.NewPtrOffsetForLeaderEpochRequest(), 3)
	add(kmsg.NewPtrLeaderAndISRRequest(), 5)
	add(kmsg.NewPtrUpdateMetadataRequest(), 7)
	add(kmsg.NewPtrStopReplicaRequest(), 3)
	add(kmsg.NewPtrAlterPartitionRequest(), 2)
	add(kmsg.NewPtrControlledShutdownRequest(), 3)
	add(kmsg.NewPtrWriteTxnMarkersRequest(), 1)
	add(kmsg.NewPtrMetadataRequest(), 9)
	add(kmsg.NewPtrApiVersionsRequest(), 3)
	add(kmsg.NewPtrSASLHandshakeRequest(), 1)
	add(kmsg.NewPtrSASLAuthenticateRequest(), 2)
	return out
}

// FuzzClientResponse feeds arbitrary response bodies, from a peer, to the
// client's decode of every request the broker's own clients send: the
// client returns an error or a response (never panics), a response that
// decodes encodes back to bytes that decode to the same encoding, and the
// connection stays in step: the next request on it gets its own answer.
func FuzzClientResponse(f *testing.F) {
	reqs := clientRequests()
	for i, r := range reqs {
		resp := r.ResponseKind()
		resp.SetVersion(r.GetVersion())
		f.Add(uint8(i), resp.AppendTo(nil))
	}
	f.Add(uint8(0), []byte{0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(3), []byte{0, 0, 0x7f, 0xff, 0xff, 0xff})
	good := func() []byte {
		r := kmsg.NewPtrApiVersionsResponse()
		r.Version = 3
		return r.AppendTo(nil)
	}()
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		req := reqs[int(which)%len(reqs)]
		c := pipeClient(t, func(key int16) []byte {
			if key == req.Key() {
				return body
			}
			return good
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := c.Request(ctx, req)
		if err == nil {
			if resp == nil {
				t.Fatal("no error and no response")
			}
			enc := resp.AppendTo(nil)
			again := req.ResponseKind()
			again.SetVersion(resp.GetVersion())
			if err := again.ReadFrom(enc); err != nil {
				t.Fatalf("re-encoded response does not decode: %v", err)
			}
			if !bytes.Equal(again.AppendTo(nil), enc) {
				t.Fatal("re-encoded response decodes to another encoding")
			}
		} else if !errors.Is(err, ErrMalformedResponse) {
			t.Fatalf("a bad body gave %v, want ErrMalformedResponse", err)
		}
		if req.Key() == apiVersionsKey {
			return
		}
		av := kmsg.NewPtrApiVersionsRequest()
		av.Version = 3
		if _, err := c.Request(ctx, av); err != nil {
			t.Fatalf("the next request on the connection: %v", err)
		}
	})
}
