package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/record"
	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcluster"
)

// Debian's python3-kafka installs for /usr/bin/python3 only.
const python = "/usr/bin/python3"

func runPython(t *testing.T, script string, args ...string) string {
	t.Helper()
	if err := exec.Command(python, "-c", "import kafka").Run(); err != nil {
		needs.Missing(t, "kafka-python is not installed for "+python+": apt-get install python3-kafka")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{"-c", script}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return string(out)
}

func TestKafkaPythonAdminProduceConsume(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	out := runPython(t, `
import sys
from kafka import KafkaProducer, KafkaConsumer, KafkaAdminClient
from kafka.admin import NewTopic
b = sys.argv[1]
admin = KafkaAdminClient(bootstrap_servers=b)
admin.create_topics([NewTopic("py-topic", 3, 1)])
print("topics", sorted(t for t in admin.list_topics() if t == "py-topic"))
p = KafkaProducer(bootstrap_servers=b, acks="all", compression_type="gzip")
for i in range(300):
    p.send("py-topic", key=b"k%d" % (i % 7), value=b"v%d" % i)
p.flush()
c = KafkaConsumer("py-topic", bootstrap_servers=b, auto_offset_reset="earliest", consumer_timeout_ms=10000)
vals = set()
for m in c:
    vals.add(m.value)
    if len(vals) == 300:
        break
print("consumed", len(vals))
`, c.Bootstrap())
	for _, want := range []string{"topics ['py-topic']", "consumed 300"} {
		if !strings.Contains(out, want) {
			t.Fatalf("kafka-python output lacks %q:\n%s", want, out)
		}
	}
}

// TestKafkaPythonLegacyMessageFormat: kafka-python pinned to Kafka 0.10
// produces magic 1 message sets (Produce v2, gzip) and fetches with Fetch
// v2/v3: the broker up-converts to v2 batches and down-converts back.
func TestKafkaPythonLegacyMessageFormat(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	out := runPython(t, `
import sys
from kafka import KafkaProducer, KafkaConsumer
b = sys.argv[1]
p = KafkaProducer(bootstrap_servers=b, api_version=(0, 10, 1), compression_type="gzip")
for i in range(50):
    p.send("legacy", key=b"k%d" % i, value=b"v%d" % i)
p.flush()
c = KafkaConsumer("legacy", bootstrap_servers=b, api_version=(0, 10, 1), auto_offset_reset="earliest", consumer_timeout_ms=10000)
got = []
for m in c:
    got.append((m.key, m.value, m.offset))
    if len(got) == 50:
        break
print("consumed", len(got), "ordered", [o for _, _, o in got] == list(range(len(got))), "first", got[0][0], got[0][1])
`, c.Bootstrap())
	if !strings.Contains(out, "consumed 50 ordered True first b'k0' b'v0'") {
		t.Fatalf("kafka-python 0.10 protocol output:\n%s", out)
	}
	codecs := batchCodecs(t, filepath.Join(c.Brokers()[0].DataDir(), "legacy-0"))
	for _, cd := range codecs {
		if cd != record.CodecGzip {
			t.Fatalf("up-converted batch stored with codec %v, want gzip", cd)
		}
	}
}
