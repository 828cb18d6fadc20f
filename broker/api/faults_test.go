//go:build kafgo_faults

package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/wire"
)

// faultServer is a Server with a fault table (as an e2e build has) and one
// handler, Metadata, that answers at once.
func faultServer() *Server {
	s := &Server{d: &Deps{}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), handlers: map[int16]*apiHandler{}, faults: &faultTable{}}
	s.register(kmsg.NewPtrMetadataRequest(), 0, 12, func(c *Call) Reply { return respond(kmsg.NewPtrMetadataResponse()) })
	return s
}

func metadataFrom(client string) *wire.Request {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 9
	return &wire.Request{Header: wire.RequestHeader{APIKey: req.Key(), APIVersion: 9, ClientID: &client, Flexible: true}, Body: req.AppendTo(nil)}
}

func setFaults(t *testing.T, s *Server, method, body string) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.FaultsHandler().ServeHTTP(rec, httptest.NewRequest(method, FaultsPath, strings.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, body, rec.Code, rec.Body)
	}
}

// TestFaultHooks: a rule applies to its API key and client id prefix only;
// fail closes the connection at once, drop holds the request until the
// rule is cleared, delay answers late; a bad rule is refused; a production
// build has none of it (faults_off.go).
func TestFaultHooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := faultServer()
		setFaults(t, s, http.MethodPost, `{"api_key":3,"client_id_prefix":"broker-2-","action":"fail"}`)
		if r := s.Serve(metadataFrom("broker-2-fetcher-0"))(); !r.Close || !r.None {
			t.Fatalf("fail: %+v, want the connection closed unanswered", r)
		}
		if r := s.Serve(metadataFrom("broker-3-fetcher-0"))(); r.Close || len(r.Body) == 0 {
			t.Fatalf("another client: %+v, want an answer", r)
		}

		setFaults(t, s, http.MethodPost, `{"api_key":3,"client_id_prefix":"broker-2-","action":"drop"}`)
		done := make(chan *wire.Response, 1)
		go func() { done <- s.Serve(metadataFrom("broker-2-x"))() }()
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("drop answered %+v", r)
		default:
		}
		setFaults(t, s, http.MethodDelete, "")
		synctest.Wait()
		if r := <-done; !r.Close {
			t.Fatalf("a dropped request after the rule was cleared: %+v, want its connection closed", r)
		}

		setFaults(t, s, http.MethodPost, `{"api_key":3,"action":"delay","delay_ms":2000}`)
		start := time.Now()
		if r := s.Serve(metadataFrom("anyone"))(); r.Close || len(r.Body) == 0 {
			t.Fatalf("delay: %+v, want an answer", r)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Fatalf("delayed by %v, want 2s", d)
		}

		rec := httptest.NewRecorder()
		s.FaultsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, FaultsPath, strings.NewReader(`{"api_key":3,"action":"explode"}`)))
		if rec.Code != http.StatusBadRequest {
			t.Fatalf("an unknown action: %d", rec.Code)
		}
	})
}
