package testcluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"kafgo/internal/testing/needs"
)

// faultsPath is the admin endpoint of a broker's protocol fault table
// (broker/api/faults.go; only in binaries built with -tags kafgo_faults).
const faultsPath = "/debug/faults"

// Fault makes a broker delay, drop or fail the requests of one API key, from
// clients whose id starts with ClientIDPrefix ("" for all): a deterministic
// stand-in for a frozen or vanished peer.
type Fault struct {
	APIKey         int16  `json:"api_key"`
	ClientIDPrefix string `json:"client_id_prefix,omitempty"`
	// Action: "delay" (answer DelayMs late), "drop" (hold unanswered until
	// cleared or DelayMs, default a minute, then close the connection) or
	// "fail" (close the connection without answering).
	Action  string `json:"action"`
	DelayMs int64  `json:"delay_ms,omitempty"`
}

// FetcherOf is the client id prefix of broker id's replica fetchers.
func FetcherOf(id int32) string { return fmt.Sprintf("broker-%d-fetcher-", id) }

// Fault adds (or replaces) a fault rule on b; it applies to the requests b
// reads from then on. A binary without fault hooks ends the test as
// needs.Missing does (skipped, or failed under KAFGO_E2E_REQUIRED=1).
func (b *Broker) Fault(t testing.TB, f Fault) {
	t.Helper()
	body, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	b.faultRequest(t, http.MethodPost, body)
}

// ClearFaults removes every fault rule on b; dropped requests are then
// answered by closing their connections.
func (b *Broker) ClearFaults(t testing.TB) {
	t.Helper()
	b.faultRequest(t, http.MethodDelete, nil)
}

func (b *Broker) faultRequest(t testing.TB, method string, body []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+b.AdminAddr()+faultsPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("testcluster: broker %d fault table: %v", b.ID, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		needs.Missing(t, fmt.Sprintf("broker binary %s has no protocol fault hooks: build it with -tags kafgo_faults (make unit and testcluster.Binary do)", Binary(t)))
	default:
		t.Fatalf("testcluster: broker %d fault table: %s: %s", b.ID, resp.Status, out)
	}
}
