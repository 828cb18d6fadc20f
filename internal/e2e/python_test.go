package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testcluster"
)

// Debian's python3-kafka installs for /usr/bin/python3 only.
const python = "/usr/bin/python3"

func runPython(t *testing.T, script string, args ...string) string {
	t.Helper()
	if err := exec.Command(python, "-c", "import kafka").Run(); err != nil {
		t.Fatal("kafka-python is required for this test: apt-get install python3-kafka")
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
