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

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/record"
	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcluster"
)

func kcat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	path := needs.Tool(t, "kcat", "apt-get install kcat")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kcat %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// batchCodecs lists the compression codec of every batch in a partition's
// segment files, straight from disk.
func batchCodecs(t *testing.T, dir string) []record.Codec {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no segments in %s: %v", dir, err)
	}
	var out []record.Codec
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		it := record.NewBatchIter(data)
		for it.Next() {
			h := it.Header()
			out = append(out, h.Codec())
		}
		if err := it.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return out
}

func TestKcatMetadataProduceConsume(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	b := c.Bootstrap()

	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			topic := "kcat-" + codec
			var lines []string
			for i := 0; i < 50; i++ {
				// Compressible payloads: librdkafka sends a batch
				// uncompressed when compression would not shrink it.
				lines = append(lines, fmt.Sprintf("%s-message-%02d-%s", codec, i, strings.Repeat("abcdefgh", 16)))
			}
			kcat(t, strings.Join(lines, "\n")+"\n", "-b", b, "-P", "-t", topic, "-p", "0", "-z", codec)
			got := kcat(t, "", "-b", b, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q")
			if want := strings.Join(lines, "\n") + "\n"; got != want {
				t.Fatalf("consumed\n%s\nwant\n%s", got, want)
			}
			// By offset: from 45 on.
			got = kcat(t, "", "-b", b, "-C", "-t", topic, "-p", "0", "-o", "45", "-e", "-q")
			if want := strings.Join(lines[45:], "\n") + "\n"; got != want {
				t.Fatalf("from offset 45 consumed\n%s\nwant\n%s", got, want)
			}
			// The batches are stored as the producer wrote them.
			wantCodec, _ := record.ParseCodec(codec)
			for _, got := range batchCodecs(t, filepath.Join(c.Brokers()[0].DataDir(), topic+"-0")) {
				if got != wantCodec {
					t.Fatalf("stored batch codec %v, want %v", got, wantCodec)
				}
			}
		})
	}

	md := kcat(t, "", "-b", b, "-L")
	for _, want := range []string{"1 brokers:", fmt.Sprintf("broker 1 at %s (controller)", c.Addrs()[0]), `topic "kcat-zstd" with 1 partitions:`, "partition 0, leader 1, replicas: 1, isrs: 1"} {
		if !strings.Contains(md, want) {
			t.Fatalf("kcat -L lacks %q:\n%s", want, md)
		}
	}
}

// TestKcatConsumeByTimestamp: records written with known timestamps are
// found through the time index by librdkafka's offsetsForTimes.
func TestKcatConsumeByTimestamp(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic = "by-time"
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	cl := c.Client(kgo.DefaultProduceTopic(topic))
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := 0; i < 20; i++ {
		r := &kgo.Record{Value: []byte(fmt.Sprintf("t%02d", i)), Timestamp: base.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	at := base.Add(15 * time.Minute).UnixMilli()
	got := kcat(t, "", "-b", c.Bootstrap(), "-C", "-t", topic, "-p", "0", "-o", fmt.Sprintf("s@%d", at), "-e", "-q")
	if want := "t15\nt16\nt17\nt18\nt19\n"; got != want {
		t.Fatalf("from timestamp consumed %q, want %q", got, want)
	}
}
