package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// TestDumpLogSegmentsOnBrokerSegments: segments a running broker wrote from
// a real producer (uncompressed and compressed batches whose largest
// timestamp sits on an inner record, with ties) pass kafgo
// dump-log-segments' index checks, both while the broker runs (the active
// segment's indexes are preallocated) and after it shut down.
func TestDumpLogSegmentsOnBrokerSegments(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic = "dumped"
	cfg := map[string]*string{"segment.bytes": kadm.StringPtr("20000"), "index.interval.bytes": kadm.StringPtr("300")}
	if resp, err := c.Admin().CreateTopic(ctx, 1, 1, cfg, topic); err != nil || resp.Err != nil {
		t.Fatalf("create topic: %v %v", err, resp.Err)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, codec := range []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression()} {
		p := c.Client(kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(codec), kgo.ProducerBatchMaxBytes(4000))
		for i := 0; i < 1000; i += 20 {
			// Twenty records a produce call, each run of ten with its
			// fourth record the newest and the others tied.
			var recs []*kgo.Record
			for j := i; j < i+20; j++ {
				ts := base.Add(time.Duration(j/10*10) * time.Millisecond)
				if j%10 == 3 {
					ts = ts.Add(5 * time.Millisecond)
				}
				recs = append(recs, &kgo.Record{Value: []byte(strings.Repeat("x", 40)), Timestamp: ts})
			}
			if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
		p.Close()
		base = base.Add(10 * time.Second)
	}

	b := c.Brokers()[0]
	dir := filepath.Join(b.DataDir(), topic+"-0")
	check := func(when string) {
		t.Helper()
		var files []string
		for _, ext := range []string{".index", ".timeindex"} {
			m, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
			files = append(files, m...)
		}
		if len(files) < 4 {
			t.Fatalf("%s: want at least two segments, have index files %v", when, files)
		}
		for _, mode := range []string{"--index-sanity-check", "--verify-index-only"} {
			cmd := exec.CommandContext(ctx, testcluster.Binary(t), "dump-log-segments", mode, "--files", strings.Join(files, ","))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Errorf("%s: dump-log-segments %s: %v\nstdout:\n%s\nstderr:\n%s", when, mode, err, out, stderr.String())
			}
		}
	}
	check("broker running")
	b.Stop() // waits for the process to exit
	check("broker stopped")
}
