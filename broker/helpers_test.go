package broker

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/config"
	"kafgo/internal/testing/testlog"
	"kafgo/internal/testing/testwait"
)

// waitTimeout bounds every wait in these tests.
const waitTimeout = 30 * time.Second

// testConfig is a one-broker configuration on 127.0.0.1 port 0 with its
// data in dir; extra settings (server.properties names) are applied on top.
func testConfig(t *testing.T, dir string, extra map[string]string) *config.Broker {
	t.Helper()
	values := map[string]string{
		"broker.id":                        "1",
		"listeners":                        "PLAINTEXT://127.0.0.1:0",
		"log.dirs":                         filepath.Join(dir, "data"),
		"offsets.topic.replication.factor": "1",
		"group.initial.rebalance.delay.ms": "0",
	}
	for k, v := range extra {
		values[k] = v
	}
	cfg, err := config.Parse(values)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newTestBroker prepares a broker logging into the returned buffer (shown
// if the test fails) and shuts it down when the test ends.
func newTestBroker(t *testing.T, cfg *config.Broker) (*Broker, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	b := New(cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if t.Failed() {
			t.Logf("broker %d log:\n%s", cfg.BrokerID, logs.String())
		}
	})
	return b, logs
}

// startTestBroker is newTestBroker, started, and waits until the broker's
// cluster view (from the controller's UpdateMetadata) has a controller and
// lists the broker itself, as clients expect of a broker that is up.
func startTestBroker(t *testing.T, cfg *config.Broker) (*Broker, *testlog.Buffer) {
	t.Helper()
	b, logs := newTestBroker(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatalf("start: %v\n%s", err, logs.String())
	}
	testwait.Until(t, waitTimeout, "the broker in its own cluster view, with a controller", func() bool {
		v := b.cache.View()
		_, ok := v.Broker(cfg.BrokerID)
		return ok && v.ControllerID >= 0
	})
	return b, logs
}

// client is a franz-go client of the broker, closed when the test ends.
func client(t *testing.T, b *Broker, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Addr("PLAINTEXT").String())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}
