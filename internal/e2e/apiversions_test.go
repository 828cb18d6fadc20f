package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
)

// TestEveryAdvertisedVersionAnswers sends every API key the broker
// advertises, at every advertised version, and checks each gets a
// decodable answer on the same connection (none closes it).
func TestEveryAdvertisedVersionAnswers(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := wire.Dial(ctx, c.Addrs()[0], "conformance")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 3
	av.ClientSoftwareName, av.ClientSoftwareVersion = "kafgo-test", "1"
	resp, err := cl.Request(ctx, av)
	if err != nil {
		t.Fatal(err)
	}
	keys := resp.(*kmsg.ApiVersionsResponse).ApiKeys
	if len(keys) < 20 {
		t.Fatalf("only %d API keys advertised", len(keys))
	}
	total := 0
	for _, k := range keys {
		for v := k.MinVersion; v <= k.MaxVersion; v++ {
			req := kmsg.RequestForKey(k.ApiKey)
			if req == nil {
				t.Fatalf("advertised key %d unknown to kmsg", k.ApiKey)
			}
			req.SetVersion(v)
			if p, ok := req.(*kmsg.ProduceRequest); ok {
				p.Acks = 1 // acks=0 gets no response by design
			}
			if f, ok := req.(*kmsg.FetchRequest); ok {
				f.ReplicaID, f.MaxWaitMillis = -1, 0
			}
			rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
			if _, err := cl.Request(rctx, req); err != nil {
				rcancel()
				t.Fatalf("key %d v%d: %v", k.ApiKey, v, err)
			}
			rcancel()
			total++
		}
	}
	t.Logf("%d (key, version) pairs answered", total)
}
