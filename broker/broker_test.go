package broker

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/storage"
	"kafgo/internal/adminapi"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// A broker on the embedded store starts, advertises and registers the port
// it bound, serves Kafka clients and its admin endpoint, stops cleanly (the
// clean-shutdown marker is written, the port released), and starts again
// on the same data.
func TestStartServeStopRestart(t *testing.T) {
	dir := t.TempDir()
	b, _ := startTestBroker(t, testConfig(t, dir, map[string]string{"admin.listener": "127.0.0.1:0"}))
	ctx := testCtx(t)
	addr := b.Addr("PLAINTEXT").(*net.TCPAddr)
	if got := b.Config().AdvertisedListeners[0].Port; got != addr.Port {
		t.Fatalf("advertised port %d, bound %d", got, addr.Port)
	}
	data, _, err := b.store.Get(ctx, znode.BrokerIDPath(1))
	if err != nil {
		t.Fatalf("registration: %v", err)
	}
	info, err := znode.ParseBrokerInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	if ep, ok := info.Endpoint("PLAINTEXT"); !ok || int(ep.Port) != addr.Port || ep.Host != "127.0.0.1" {
		t.Fatalf("registered endpoints %+v, bound %v", info.Endpoints, addr)
	}

	adm := kadm.NewClient(client(t, b))
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	prod := client(t, b, kgo.DefaultProduceTopic("orders"))
	if err := prod.ProduceSync(ctx, kgo.StringRecord("one")).FirstErr(); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get("http://" + b.adminHTTP.Addr().String() + adminapi.BrokerPath)
	if err != nil {
		t.Fatal(err)
	}
	var view adminapi.Broker
	err = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if err != nil || view.BrokerID != 1 || !view.IsController {
		t.Fatalf("admin %s: %+v, %v", adminapi.BrokerPath, view, err)
	}

	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", storage.CleanShutdownFile)); err != nil {
		t.Fatalf("no clean shutdown marker: %v", err)
	}
	ln, err := net.Listen("tcp", addr.String())
	if err != nil {
		t.Fatalf("listener port still bound after Shutdown: %v", err)
	}
	ln.Close()

	b2, _ := startTestBroker(t, testConfig(t, dir, nil))
	cons := client(t, b2, kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []string
	for len(got) < 1 && ctx.Err() == nil {
		fs := cons.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != 1 || got[0] != "one" {
		t.Fatalf("after restart consumed %q, want [one]", got)
	}
}

// A listener or admin port in use fails Start with the bind error before
// anything else is done: no metadata store is opened, no log dir created.
func TestStartPortInUse(t *testing.T) {
	for _, key := range []string{"listeners", "admin.listener"} {
		t.Run(key, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			value := taken.Addr().String()
			if key == "listeners" {
				value = "PLAINTEXT://" + value
			}
			extra := map[string]string{key: value}
			if key == "listeners" {
				extra["admin.listener"] = "127.0.0.1:0"
			}
			dir := t.TempDir()
			b, _ := newTestBroker(t, testConfig(t, dir, extra))
			err = b.Start(testCtx(t))
			if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), taken.Addr().String()) {
				t.Fatalf("Start: %v, want the bind error on %s", err, taken.Addr())
			}
			if _, err := os.Stat(filepath.Join(dir, "data")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the log dir was touched before the ports were bound: %v", err)
			}
		})
	}
}

// A start interrupted through its context returns the context's error, and
// Shutdown releases the ports it had bound.
func TestStartInterrupted(t *testing.T) {
	b, _ := newTestBroker(t, testConfig(t, t.TempDir(), nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Start(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with an ended context: %v, want context.Canceled", err)
	}
	addr := b.Addr("PLAINTEXT").String()
	if err := b.Shutdown(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("port still bound after Shutdown: %v", err)
	}
	ln.Close()
}

// With ZooKeeper: a second broker with a live broker's broker.id gives up
// with an error naming the id, does not attempt a controlled shutdown (it
// never registered; the controller would take it for the live one), and
// leaves the live broker's registration alone. A registration whose session
// goes away while the broker waits (its own previous process) is waited for.
func TestRegistrationOfABrokerIDInUse(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	zkConfig := func(sessionMs string) map[string]string {
		return map[string]string{"zookeeper.connect": zk.Connect(), "zookeeper.session.timeout.ms": sessionMs}
	}

	t.Run("another live broker", func(t *testing.T) {
		live, _ := startTestBroker(t, testConfig(t, t.TempDir(), zkConfig("6000")))
		dup, logs := newTestBroker(t, testConfig(t, t.TempDir(), zkConfig("1000")))
		ctx := testCtx(t)
		err := dup.Start(ctx)
		if !errors.Is(err, meta.ErrNodeExists) || !strings.Contains(err.Error(), "broker.id 1 is already registered") {
			t.Fatalf("Start of a duplicate broker.id: %v", err)
		}
		if err := dup.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logs.String(), "controlled shutdown") {
			t.Fatalf("a broker that never registered attempted a controlled shutdown:\n%s", logs.String())
		}
		_, st, err := live.store.Get(ctx, znode.BrokerIDPath(1))
		if err != nil || st.EphemeralOwner != live.store.SessionID() {
			t.Fatalf("the live broker's registration: owner 0x%x, err %v; want session 0x%x", st.EphemeralOwner, err, live.store.SessionID())
		}
		if err := live.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a registration that goes away", func(t *testing.T) {
		ctx := testCtx(t)
		old, err := meta.DialZooKeeper(ctx, zk.Connect(), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer old.Close()
		if _, err := old.Create(ctx, znode.BrokerIDPath(1), []byte(`{}`), meta.Ephemeral); err != nil {
			t.Fatal(err)
		}
		b, logs := newTestBroker(t, testConfig(t, t.TempDir(), zkConfig("6000")))
		startCtx, cancel := context.WithCancel(ctx)
		var startErr error
		started := make(chan struct{})
		go func() { startErr = b.Start(startCtx); close(started) }()
		t.Cleanup(func() { cancel(); <-started }) // Start ends before Shutdown
		testwait.Until(t, waitTimeout, "the broker waiting for the old registration", func() bool {
			return strings.Contains(logs.String(), "already registered")
		})
		old.Close() // as the old session expires
		<-started
		if startErr != nil {
			t.Fatalf("Start after the old registration went away: %v", startErr)
		}
		_, st, err := b.store.Get(ctx, znode.BrokerIDPath(1))
		if err != nil || st.EphemeralOwner != b.store.SessionID() {
			t.Fatalf("registration owner 0x%x (err %v), want 0x%x", st.EphemeralOwner, err, b.store.SessionID())
		}
	})
}
