package api

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestLocalRecoversHandlerPanic: a handler that panics in an in-process
// call (the controller to its own broker, a broker to its own controller)
// fails that call with an error; the broker goes on, and the next call is
// served.
func TestLocalRecoversHandlerPanic(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), handlers: map[int16]*apiHandler{}}
	calls := 0
	s.register(kmsg.NewPtrMetadataRequest(), 0, 9, func(c *Call) Reply {
		calls++
		if calls == 1 {
			var m map[string]int
			m["boom"] = 1 // a nil map write: a bug, not input
		}
		return respond(kmsg.NewPtrMetadataResponse())
	})
	// And one whose Reply (run later) panics.
	s.register(kmsg.NewPtrApiVersionsRequest(), 0, 3, func(c *Call) Reply {
		return func() Result { panic("reply failed") }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 9
	if _, err := s.Local(ctx, req); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("a panicking handler: err = %v, want a panic error", err)
	}
	if resp, err := s.Local(ctx, req); err != nil || resp == nil {
		t.Fatalf("the call after a panic: %v, %v", resp, err)
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 3
	if _, err := s.Local(ctx, av); err == nil || !strings.Contains(err.Error(), "reply failed") {
		t.Fatalf("a panicking reply: err = %v, want the panic", err)
	}
}
