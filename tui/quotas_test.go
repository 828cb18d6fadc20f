package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kafgo/internal/adminapi"
)

// throttled is the healthy cluster with broker 1 throttling two clients.
func throttled() *Snapshot {
	s := healthy()
	s.Brokers[0].Throttled = []ThrottledClient{
		{Type: "produce", ClientID: "ingest", ThrottleTimeMs: 231.4},
		{Type: "request", User: "alice", ThrottleTimeMs: 12},
	}
	return s
}

// TestGoldenThrottled: the brokers view says which clients the selected
// broker throttles.
func TestGoldenThrottled(t *testing.T) {
	for _, sz := range sizes {
		name := fmt.Sprintf("throttled-brokers-%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			m := loaded(t, throttled(), Options{View: ViewBrokers}, sz.w, sz.h)
			frame := m.View()
			if !strings.Contains(frame, "Broker 1 throttles produce client-id ingest 231ms, request user alice 12ms") {
				t.Fatalf("no throttled-clients line:\n%s", frame)
			}
			checkFrame(t, name, frame, sz.w, sz.h)
			// Broker 2 throttles nobody: no line.
			if f := press(t, m, "j").View(); strings.Contains(f, "throttles") {
				t.Fatalf("broker 2 shows a throttled-clients line:\n%s", f)
			}
		})
	}
}

// TestMergeAdminThrottled: a broker's quota sensors that throttled
// recently, and only those, reach its Broker.
func TestMergeAdminThrottled(t *testing.T) {
	s := healthy()
	for i := range s.Brokers {
		s.Brokers[i].Admin = ""
	}
	reports := []adminReport{{
		addr:   "kafka-2.example:9644",
		broker: adminapi.Broker{BrokerID: 2, ControllerID: 1},
		quotas: []adminapi.ClientQuota{
			{Type: "produce", ClientID: "idle"},
			{Type: "fetch", User: "bob", ThrottleTimeMs: 40},
			{Type: "produce", ClientID: "now", Throttled: true},
		},
	}}
	mergeAdmin(s, reports)
	var got []string
	for _, c := range s.Brokers[1].Throttled {
		got = append(got, c.String())
	}
	if want := []string{"fetch user bob 40ms", "produce client-id now 0ms"}; !slices.Equal(got, want) {
		t.Fatalf("broker 2 throttled %v, want %v", got, want)
	}
	if len(s.Brokers[0].Throttled) != 0 {
		t.Fatalf("broker 1 has no endpoint yet throttles %v", s.Brokers[0].Throttled)
	}
	if got := (ThrottledClient{Type: "fetch"}).String(); got != "fetch everyone 0ms" {
		t.Fatalf("a sensor covering everyone: %q", got)
	}
}
