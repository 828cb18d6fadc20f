package tui

import (
	"errors"
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

// TestMergeAdminMissing: without --admin the snapshot says so and no
// follower lag is known (the leader's own LEO is no follower's); with
// endpoints given, the brokers none answered for are named.
func TestMergeAdminMissing(t *testing.T) {
	s := noAdmin()
	s.NoAdmin = false
	mergeAdmin(s, nil)
	if !s.NoAdmin || len(s.Warnings) != 0 {
		t.Fatalf("no endpoints: NoAdmin %v, warnings %q", s.NoAdmin, s.Warnings)
	}
	if l, ok := s.summary().maxLag, s.summary().maxLagKnown; ok {
		t.Fatalf("max follower lag %d known without any follower LEO", l)
	}
	if tt, _ := s.Topic("orders"); tt.Partitions[0].LEO != 1200 {
		t.Fatalf("the leader's LEO went: %+v", tt.Partitions[0])
	}

	s = noAdmin()
	mergeAdmin(s, []adminReport{
		{addr: "kafka-1.example:9644", broker: adminapi.Broker{BrokerID: 1, ControllerID: 2}},
		{addr: "kafka-9.example:9644", err: errors.New("connect: connection refused")},
	})
	want := []string{"admin kafka-9.example:9644: connect: connection refused",
		"no admin endpoint answered for brokers 2,3: follower lag of the partitions led there, and byte rates, unknown"}
	if s.NoAdmin || !slices.Equal(s.Warnings, want) {
		t.Fatalf("NoAdmin %v, warnings %q, want %q", s.NoAdmin, s.Warnings, want)
	}
}
