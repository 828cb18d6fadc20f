package api

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clientquota"
	"kafgo/broker/wire"
)

func quotaServer(t *testing.T) (*Server, *clientquota.Manager) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := clientquota.NewManager(clientquota.Config{Logger: log})
	q.Update(clientquota.Entity{Client: clientquota.NamedPart("chatty")}, map[string]string{clientquota.RequestPercentage: "0.000000001"})
	q.Update(clientquota.Entity{Client: clientquota.NamedPart("bulk")}, map[string]string{clientquota.ProducerByteRate: "1000"})
	return New(&Deps{Logger: log, ClientQuotas: q}), q
}

func apiVersionsCall(clientID string, conn *wire.ConnInfo) *wire.Request {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName, req.ClientSoftwareVersion = "t", "1"
	return &wire.Request{
		Header: wire.RequestHeader{APIKey: 18, APIVersion: 3, ClientID: &clientID, Flexible: true},
		Body:   req.AppendTo(nil), Conn: conn, Received: time.Now(),
	}
}

// TestRequestQuotaThrottlesAnyAPI: a client over its request quota gets
// throttle_time_ms in the response of any API that has the field (here
// ApiVersions), bounded by one quota window, and its connection is muted
// for that long; another client id is not.
func TestRequestQuotaThrottlesAnyAPI(t *testing.T) {
	s, _ := quotaServer(t)
	for _, tc := range []struct {
		clientID  string
		throttled bool
	}{{"chatty", true}, {"quiet", false}} {
		conn := &wire.ConnInfo{}
		before := time.Now()
		out := s.Serve(apiVersionsCall(tc.clientID, conn))()
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = 3
		if err := resp.ReadFrom(out.Body); err != nil {
			t.Fatal(err)
		}
		muted := conn.MutedUntil()
		if !tc.throttled {
			if resp.ThrottleMillis != 0 || !muted.IsZero() {
				t.Fatalf("%s: throttle %d ms, muted until %v", tc.clientID, resp.ThrottleMillis, muted)
			}
			continue
		}
		if resp.ThrottleMillis <= 0 || resp.ThrottleMillis > 1000 {
			t.Fatalf("%s: throttle_time_ms %d, want within (0, 1000]", tc.clientID, resp.ThrottleMillis)
		}
		if muted.Before(before.Add(time.Duration(resp.ThrottleMillis) * time.Millisecond)) {
			t.Fatalf("%s: muted until %v, throttle %d ms from %v", tc.clientID, muted, resp.ThrottleMillis, before)
		}
	}
}

// TestInProcessAndInterBrokerExempt: in-process calls (no connection),
// inter-broker APIs and replica fetches are never charged.
func TestInProcessAndInterBrokerExempt(t *testing.T) {
	s, q := quotaServer(t)
	chatty := "chatty"
	conn := &wire.ConnInfo{}
	for _, c := range []*Call{
		{Header: wire.RequestHeader{APIKey: 18, ClientID: &chatty}},                                            // in process
		{Header: wire.RequestHeader{APIKey: 4, ClientID: &chatty}, Conn: conn},                                 // LeaderAndIsr
		{Header: wire.RequestHeader{APIKey: 56, ClientID: &chatty}, Conn: conn},                                // AlterPartition
		{Header: wire.RequestHeader{APIKey: 1, ClientID: &chatty}, Conn: conn, quota: callQuota{exempt: true}}, // replica fetch
	} {
		c.quota.handled = time.Hour
		res := Result{Resp: kmsg.NewPtrMetadataResponse()}
		s.settleQuotas(c, &res)
		if th := res.Resp.(*kmsg.MetadataResponse).ThrottleMillis; th != 0 || !conn.MutedUntil().IsZero() {
			t.Fatalf("key %d: throttled %d ms", c.Header.APIKey, th)
		}
	}
	for _, st := range q.Stats() {
		t.Fatalf("an exempt call was measured: %+v", st)
	}
}

// TestProduceQuota: Produce is charged its request size to the producer
// byte rate, and acks=0 (no response) only that: the connection is muted
// all the same.
func TestProduceQuota(t *testing.T) {
	s, q := quotaServer(t)
	bulk := "bulk"
	conn := &wire.ConnInfo{}
	req := kmsg.NewPtrProduceRequest()
	req.Acks = 0
	c := &Call{Header: wire.RequestHeader{APIKey: 0, ClientID: &bulk}, Conn: conn, Req: req}
	c.quota.size, c.quota.handled = 20_000, time.Hour
	res := Result{None: true}
	s.settleQuotas(c, &res)
	// 20 kB over a fresh 10 s window against 1000 B/s: 10 s.
	if until := time.Until(conn.MutedUntil()); until < 9*time.Second || until > 10*time.Second {
		t.Fatalf("acks=0 produce: muted for %v, want about 10 s", until)
	}
	for _, st := range q.Stats() {
		if st.Type == clientquota.Request {
			t.Fatalf("acks=0 produce charged to the request quota: %+v", st)
		}
	}
	req.Acks = 1
	resp := kmsg.NewPtrProduceResponse()
	res = Result{Resp: resp}
	s.settleQuotas(c, &res)
	// 40 kB over 10 s would need 30 s: bounded by the 11 s quota window.
	if resp.ThrottleMillis != 11_000 {
		t.Fatalf("acks=1 produce: throttle_time_ms %d, want the 11 s bound", resp.ThrottleMillis)
	}
}

// TestFetchQuotaSettledByHandler: a fetch over the consumer byte rate is
// throttled by chargeFetch, its bytes taken back, and Serve applies the
// throttle chargeFetch chose.
func TestFetchQuotaSettledByHandler(t *testing.T) {
	s, q := quotaServer(t)
	q.Update(clientquota.Entity{Client: clientquota.NamedPart("reader")}, map[string]string{clientquota.ConsumerByteRate: "1000"})
	reader := "reader"
	conn := &wire.ConnInfo{}
	c := &Call{Header: wire.RequestHeader{APIKey: 1, ClientID: &reader}, Conn: conn}
	if got := s.fetchQuotaMaxBytes(c); got != 10_000 {
		t.Fatalf("fetch bound %d, want the quota's 10 windows", got)
	}
	if d := s.chargeFetch(c, 20_000); d != 10*time.Second {
		t.Fatalf("throttle %v", d)
	}
	res := Result{Resp: kmsg.NewPtrFetchResponse()}
	s.settleQuotas(c, &res)
	if th := res.Resp.(*kmsg.FetchResponse).ThrottleMillis; th != 10_000 || time.Until(conn.MutedUntil()) < 9*time.Second {
		t.Fatalf("throttle %d ms, muted until %v", th, conn.MutedUntil())
	}
	// The throttled bytes were taken back: 10 kB more fits.
	c2 := &Call{Header: c.Header, Conn: &wire.ConnInfo{}}
	if d := s.chargeFetch(c2, 10_000); d != 0 {
		t.Fatalf("after the throttled fetch: %v", d)
	}
}
