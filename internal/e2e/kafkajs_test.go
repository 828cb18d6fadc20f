package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/record"
	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcluster"
)

// kafkajsDir holds the pinned kafkajs (package.json, package-lock.json);
// `make test` runs `npm ci` there when node_modules is missing.
const kafkajsDir = "testdata/kafkajs"

// TestKafkaJSRoundTrip: kafkajs 2.2.4 (a pure JavaScript client with its
// own protocol code) creates a topic, produces 300 keyed records with
// headers through its idempotent producer with gzip and acks=-1, consumes
// them in a group that commits on leave, and a second member of the group
// finds nothing left.
func TestKafkaJSRoundTrip(t *testing.T) {
	node := needs.Tool(t, "node", "apt-get install nodejs npm")
	if _, err := os.Stat(filepath.Join(kafkajsDir, "node_modules", "kafkajs")); err != nil {
		needs.Missing(t, fmt.Sprintf("kafkajs is not installed: run `npm ci` in internal/e2e/%s (make e2e-deps does): %v", kafkajsDir, err))
	}
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(kafkajsDir, "roundtrip.js"), c.Bootstrap(), "js-topic", "js-group")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kafkajs: %v\n%s", err, out)
	}
	for _, want := range []string{
		`topics ["js-topic"]`,
		"end offsets sum 300",
		"consumed 300 distinct 300",
		"keys split across partitions 0",
		"bad headers 0",
		"committed sum 300",
		"second member consumed 0",
		"group state Empty",
	} {
		if !strings.Contains(string(out), want+"\n") {
			t.Fatalf("kafkajs output lacks %q:\n%s", want, out)
		}
	}
	// The producer's batches are kept as written: gzip on disk.
	for p := range 3 {
		dir := filepath.Join(c.Brokers()[0].DataDir(), fmt.Sprintf("js-topic-%d", p))
		codecs := batchCodecs(t, dir)
		if len(codecs) == 0 {
			t.Fatalf("partition %d holds no batches", p)
		}
		for _, got := range codecs {
			if got != record.CodecGzip {
				t.Fatalf("partition %d: stored batch codec %v, want gzip", p, got)
			}
		}
	}
}
