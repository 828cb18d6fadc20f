package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestConfigsToolAgainstBroker drives `kafgo configs` (kafka-configs.sh)
// against a broker: topic overrides set with a bracketed list value,
// described with Kafka's lines and synonyms, deleted (a missing one is
// refused with exit 1), and broker and cluster-default configs set at run
// time and described.
func TestConfigsToolAgainstBroker(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	bs := "--bootstrap-server=" + c.Bootstrap()
	kafgo(t, "", "topics", bs, "--create", "--topic", "cfg", "--partitions", "1")

	if out := kafgo(t, "", "configs", bs, "--entity-type", "topics", "--entity-name", "cfg", "--alter",
		"--add-config", "retention.ms=3600000,cleanup.policy=[compact,delete]"); out != "Completed updating config for topic cfg.\n" {
		t.Fatalf("alter: %q", out)
	}
	want := "Dynamic configs for topic cfg are:\n" +
		"  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n" +
		"  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, DEFAULT_CONFIG:log.retention.hours=168}\n"
	if out := kafgo(t, "", "configs", bs, "--topic", "cfg", "--describe"); out != want {
		t.Fatalf("describe:\n%s\nwant:\n%s", out, want)
	}
	// kafka-topics shows the same overrides.
	if desc := kafgo(t, "", "topics", bs, "--describe", "--topic", "cfg"); !strings.Contains(desc, "Configs: cleanup.policy=compact,delete,retention.ms=3600000") {
		t.Fatalf("topics --describe:\n%s", desc)
	}

	// Deleting an override that is not set: Kafka's error, exit 1, nothing changed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testcluster.Binary(t), "configs", bs, "--topic", "cfg", "--alter", "--delete-config", "segment.ms,retention.ms")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "Error while executing config command with args '"+bs+" --topic cfg --alter --delete-config segment.ms,retention.ms'\nInvalid config(s): segment.ms\n") {
		t.Fatalf("delete of an unset override: %v\n%s", err, out)
	}
	kafgo(t, "", "configs", bs, "--topic", "cfg", "--alter", "--delete-config", "retention.ms")
	if out := kafgo(t, "", "configs", bs, "--topic", "cfg", "--describe"); strings.Contains(out, "retention.ms") || !strings.Contains(out, "cleanup.policy=compact,delete") {
		t.Fatalf("after delete:\n%s", out)
	}

	// Broker and cluster-default configs, changed at run time.
	if out := kafgo(t, "", "configs", bs, "--broker", "1", "--alter", "--add-config", "follower.replication.throttled.rate=1000000"); out != "Completed updating config for broker 1.\n" {
		t.Fatalf("broker alter: %q", out)
	}
	if out := kafgo(t, "", "configs", bs, "--broker-defaults", "--alter", "--add-config", "log.retention.ms=7200000"); out != "Completed updating default config for brokers in the cluster.\n" {
		t.Fatalf("default alter: %q", out)
	}
	testwait.For(t, 30*time.Second, "the broker configs described", func() (bool, string) {
		out := kafgo(t, "", "configs", bs, "--entity-type", "brokers", "--describe")
		want := "Dynamic configs for broker 1 are:\n" +
			"  follower.replication.throttled.rate=1000000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:follower.replication.throttled.rate=1000000, DEFAULT_CONFIG:follower.replication.throttled.rate=9223372036854775807}\n" +
			"Default configs for brokers in the cluster are:\n" +
			"  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=7200000, DEFAULT_CONFIG:log.retention.hours=168}\n"
		return out == want, out
	})
	if all := kafgo(t, "", "configs", bs, "--broker", "1", "--describe", "--all"); !strings.HasPrefix(all, "All configs for broker 1 are:\n") ||
		!strings.Contains(all, "\n  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=7200000, DEFAULT_CONFIG:log.retention.hours=168}\n") {
		t.Fatalf("--all:\n%s", all)
	}
}
