package e2e

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// kafgo runs the binary under test with stdin and returns stdout, failing
// the test on a non-zero exit.
func kafgo(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, _ := kafgo2(t, stdin, args...)
	return out
}

// kafgo2 is kafgo returning stderr too.
func kafgo2(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testcluster.Binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kafgo %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
	}
	return string(out), stderr.String()
}

// TestOperationsSuiteAgainstBroker drives the client tools against a real
// broker, as an operator would: topics, console produce/consume (with a
// group), consumer groups describe and reset, and the perf tools.
func TestOperationsSuiteAgainstBroker(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	bs := "--bootstrap-server=" + c.Bootstrap()

	if out := kafgo(t, "", "topics", bs, "--create", "--topic", "ops", "--partitions", "3", "--config", "retention.ms=3600000"); out != "Created topic ops.\n" {
		t.Fatalf("create: %q", out)
	}
	desc := kafgo(t, "", "topics", bs, "--describe", "--topic", "ops")
	if !regexp.MustCompile(`^Topic: ops\tTopicId: \S{22}\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: retention.ms=3600000\n`).MatchString(desc) ||
		strings.Count(desc, "\tTopic: ops\tPartition: ") != 3 || !strings.Contains(desc, "\tLeader: 1\tReplicas: 1\tIsr: 1") {
		t.Fatalf("describe:\n%s", desc)
	}

	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, "key"+string(rune('a'+i%26))+string(rune('a'+i/26))+":value-"+string(rune('A'+i%26)))
	}
	kafgo(t, strings.Join(lines, "\n")+"\n", "produce", bs, "--topic", "ops", "--property", "parse.key=true", "--property", "key.separator=:")
	got := kafgo(t, "", "consume", bs, "--topic", "ops", "--group", "ops-group", "--from-beginning", "--max-messages", "30", "--property", "print.key=true")
	if n := strings.Count(got, "\n"); n != 30 {
		t.Fatalf("consumed %d lines:\n%s", n, got)
	}

	describe, notice := kafgo2(t, "", "groups", bs, "--describe", "--group", "ops-group")
	if !strings.Contains(notice, "Consumer group 'ops-group' has no active members.") ||
		!regexp.MustCompile(`GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID`).MatchString(describe) {
		t.Fatalf("groups --describe:\n%s", describe)
	}
	lag0 := regexp.MustCompile(`(?m)^ops-group\s+ops\s+\d+\s+(\d+)\s+(\d+)\s+0\s+-\s+-\s+-$`)
	if n := len(lag0.FindAllString(describe, -1)); n != 3 {
		t.Fatalf("want 3 partitions committed at the end with lag 0:\n%s", describe)
	}
	if list := kafgo(t, "", "groups", bs, "--list"); !strings.Contains(list, "ops-group") {
		t.Fatalf("groups --list: %q", list)
	}
	reset := kafgo(t, "", "groups", bs, "--reset-offsets", "--group", "ops-group", "--topic", "ops", "--to-earliest", "--execute")
	if n := len(regexp.MustCompile(`(?m)^ops-group\s+ops\s+\d+\s+0 *$`).FindAllString(reset, -1)); n != 3 {
		t.Fatalf("reset --to-earliest:\n%s", reset)
	}
	again := kafgo(t, "", "consume", bs, "--topic", "ops", "--group", "ops-group", "--max-messages", "30")
	if n := strings.Count(again, "\n"); n != 30 {
		t.Fatalf("after the reset the group re-read %d records, want 30", n)
	}

	perf := kafgo(t, "", "perf", "produce", "--topic", "ops", "--num-records", "20000", "--record-size", "100", "--throughput", "-1", "--producer-props", "bootstrap.servers="+c.Bootstrap(), "acks=all")
	if !regexp.MustCompile(`(?m)^20000 records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99.9th.$`).MatchString(perf) {
		t.Fatalf("perf produce:\n%s", perf)
	}
	pc := kafgo(t, "", "perf", "consume", bs, "--topic", "ops", "--messages", "20030", "--hide-header")
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d [\d:]+, \d{4}-\d\d-\d\d [\d:]+, [\d.]+, [\d.]+, 20030, `).MatchString(pc) {
		t.Fatalf("perf consume:\n%s", pc)
	}

	// A produce to a topic that does not exist asks the broker to create it
	// (auto.create.topics.enable defaults to true), as Kafka's console and
	// perf producers do, instead of failing every record.
	kafgo(t, "a\nb\n", "produce", bs, "--topic", "auto-console")
	if got := kafgo(t, "", "consume", bs, "--topic", "auto-console", "--from-beginning", "--max-messages", "2"); got != "a\nb\n" {
		t.Fatalf("auto-created topic read back %q", got)
	}
	kafgo(t, "", "perf", "produce", "--topic", "auto-perf", "--num-records", "10", "--record-size", "10", "--throughput", "-1", "--producer-props", "bootstrap.servers="+c.Bootstrap())
	if desc := kafgo(t, "", "topics", bs, "--describe", "--topic", "auto-perf"); !strings.Contains(desc, "PartitionCount: 1\t") {
		t.Fatalf("auto-created by perf produce:\n%s", desc)
	}
	// A consumer of a missing topic says so instead of waiting in silence.
	_, warn := kafgo2(t, "", "consume", bs, "--topic", "no-such-topic", "--timeout-ms", "500")
	if !strings.Contains(warn, "{no-such-topic=UNKNOWN_TOPIC_OR_PARTITION}") || !strings.Contains(warn, "Processed a total of 0 messages") {
		t.Fatalf("consume of a missing topic, stderr:\n%s", warn)
	}

	kafgo(t, "", "topics", bs, "--delete", "--topic", "ops")
	testwait.For(t, 30*time.Second, "topic gone from --list", func() (bool, string) {
		out := kafgo(t, "", "topics", bs, "--list", "--exclude-internal")
		return !strings.Contains(out, "ops\n"), out
	})
}
