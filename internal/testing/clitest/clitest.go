package clitest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/testwait"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata with the output the tests got")

// Cluster starts an in-memory cluster (kfake listens on 127.0.0.1 only)
// and returns its comma-separated listen addresses; it is closed when the
// test ends.
func Cluster(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("starting kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}

// Client returns a kgo client for addrs, closed when the test ends.
func Client(t testing.TB, addrs string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(addrs, ",")...)}, opts...)...)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Context returns a context that ends after d or with the test.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Golden compares got with testdata/<name>, or rewrites the file under
// -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update to accept)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Eventually is testwait.For for a condition that reports why it does not
// hold yet as an error.
func Eventually(t testing.TB, d time.Duration, cond func() (bool, error)) {
	t.Helper()
	testwait.For(t, d, "the condition", func() (bool, string) {
		ok, err := cond()
		if err != nil {
			return ok, err.Error()
		}
		return ok, ""
	})
}

// RecordWait is the idle timeout for test reads that expect records: the
// first poll also pays for metadata and offset lookups, which on a loaded
// machine under -race can take well over half a second. Reads that expect
// nothing keep a short timeout, since they end by it either way.
const RecordWait = 3 * time.Second
