package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSetDynamic(t *testing.T) {
	tests := []struct {
		key, value string
		get        func(*Broker) any
		want       any
	}{
		{"min.insync.replicas", "2", func(b *Broker) any { return b.MinInsyncReplicas }, int32(2)},
		{"log.retention.ms", "5000", func(b *Broker) any { return b.LogRetentionMs }, int64(5000)},
		{"log.retention.hours", "1", func(b *Broker) any { return b.LogRetentionMs }, int64(3600 * 1000)},
		{"log.cleanup.policy", "compact,delete", func(b *Broker) any { return b.LogCleanupPolicy }, []string{"compact", "delete"}},
		{"message.max.bytes", "2000000", func(b *Broker) any { return b.MessageMaxBytes }, int32(2000000)},
		{"unclean.leader.election.enable", "true", func(b *Broker) any { return b.UncleanLeaderElectionEnable }, true},
		{"num.io.threads", "16", func(b *Broker) any { return b.NumIoThreads }, int32(16)},
		{"log.cleaner.threads", "2", func(b *Broker) any { return b.LogCleanerThreads }, int32(2)},
		{"max.connections", "100", func(b *Broker) any { return b.MaxConnections }, int32(100)},
		{"producer.id.expiration.ms", "1000", func(b *Broker) any { return b.ProducerIDExpirationMs }, int32(1000)},
		{"leader.replication.throttled.rate", "200000", func(b *Broker) any { return b.LeaderReplicationThrottledRate }, int64(200000)},
		{"follower.replication.throttled.rate", "0", func(b *Broker) any { return b.FollowerReplicationThrottledRate }, int64(0)},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			b := Default()
			if err := b.Set(tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			if got := tt.get(b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			v, _ := b.Describe(tt.key)
			if v.Source != DynamicBrokerConfig || v.ReadOnly {
				t.Errorf("described source %v read-only %v", v.Source, v.ReadOnly)
			}
			if got := b.DynamicBrokerConfigs()[tt.key]; got != tt.value {
				t.Errorf("dynamic layer holds %q", got)
			}
		})
	}
}

func TestSetRefused(t *testing.T) {
	tests := []struct {
		name, key, value string
		sentinel         error
		contains         string
	}{
		{"read-only", "broker.id", "5", ErrReadOnly, "read-only"},
		{"read-only listeners", "listeners", "PLAINTEXT://:1", ErrReadOnly, "restart"},
		{"read-only zookeeper", "zookeeper.connect", "zk:2181", ErrReadOnly, "read-only"},
		{"unknown", "min.insync.replica", "2", ErrUnknownKey, "did you mean min.insync.replicas"},
		{"bad value", "min.insync.replicas", "0", ErrInvalidValue, "at least 1"},
		{"cross-key rule", "log.cleaner.min.compaction.lag.ms", "99999999999999", ErrInvalidValue, "log.cleaner.max.compaction.lag.ms"},
		{"thread pool more than doubled", "num.io.threads", "17", ErrInvalidValue, "double the current value 8"},
		{"thread pool below half", "num.io.threads", "3", ErrInvalidValue, "half the current value 8"},
		{"cleaner threads to zero", "log.cleaner.threads", "0", ErrInvalidValue, "below 1"},
		{"negative throttle", "leader.replication.throttled.rate", "-1", ErrInvalidValue, "at least 0"},
		{"throttle not a long", "follower.replication.throttled.rate", "1e6", ErrInvalidValue, "long"},
		{"read-only quota window", "replication.quota.window.num", "5", ErrReadOnly, "read-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, map[string]string{"log.cleaner.max.compaction.lag.ms": "1000"})
			before := b.Clone()
			err := b.Set(tt.key, tt.value)
			ce := wantKeyError(t, err, tt.key, tt.value, tt.sentinel)
			if !strings.Contains(ce.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", ce, tt.contains)
			}
			if !reflect.DeepEqual(b, before) {
				t.Error("a refused Set changed the broker")
			}
		})
	}
}

func TestDynamicPrecedence(t *testing.T) {
	b := mustParse(t, map[string]string{"log.retention.ms": "1000", "num.partitions": "3"})

	// A dynamic lower-precedence spelling does not beat a static
	// higher-precedence one, as in Kafka.
	if err := b.Set("log.retention.hours", "5"); err != nil {
		t.Fatal(err)
	}
	if b.LogRetentionMs != 1000 {
		t.Errorf("retention %d, want the static log.retention.ms", b.LogRetentionMs)
	}

	// Per-broker beats cluster default beats static.
	if err := b.SetClusterDefault("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if b.MinInsyncReplicas != 2 {
		t.Errorf("cluster default not applied: %d", b.MinInsyncReplicas)
	}
	if err := b.Set("min.insync.replicas", "3"); err != nil {
		t.Fatal(err)
	}
	if b.MinInsyncReplicas != 3 {
		t.Errorf("per-broker value not applied: %d", b.MinInsyncReplicas)
	}
	v, _ := b.Describe("min.insync.replicas")
	want := []Synonym{
		{"min.insync.replicas", "3", DynamicBrokerConfig},
		{"min.insync.replicas", "2", DynamicDefaultBrokerConfig},
		{"min.insync.replicas", "1", DefaultConfig},
	}
	if !reflect.DeepEqual(v.Synonyms, want) {
		t.Errorf("synonyms %v, want %v", v.Synonyms, want)
	}

	if err := b.Reset("min.insync.replicas"); err != nil {
		t.Fatal(err)
	}
	if b.MinInsyncReplicas != 2 {
		t.Errorf("after Reset: %d, want the cluster default 2", b.MinInsyncReplicas)
	}
	if err := b.ResetClusterDefault("min.insync.replicas"); err != nil {
		t.Fatal(err)
	}
	if b.MinInsyncReplicas != 1 {
		t.Errorf("after ResetClusterDefault: %d, want 1", b.MinInsyncReplicas)
	}
	if err := b.Reset("min.insync.replicas"); err != nil {
		t.Errorf("Reset of an unset key: %v", err)
	}
	if err := b.Reset("broker.id"); err == nil {
		t.Error("Reset of a read-only key accepted")
	}
	if got := b.DynamicDefaultConfigs(); len(got) != 0 {
		t.Errorf("cluster default layer left %v", got)
	}
	if got := b.StaticValues(); got["num.partitions"] != "3" {
		t.Errorf("static layer %v", got)
	}
}

// TestSetKeepsServerFilledFields: the broker id generated by the metadata
// store and ports bound for port 0 survive a dynamic update.
func TestSetKeepsServerFilledFields(t *testing.T) {
	b := mustParse(t, map[string]string{"zookeeper.connect": "zk:2181", "listeners": "PLAINTEXT://127.0.0.1:0"})
	b.BrokerID = 1001
	b.Listeners[0].Port = 40001
	b.AdvertisedListeners[0].Port = 40001
	if err := b.Set("num.io.threads", "4"); err != nil {
		t.Fatal(err)
	}
	if b.BrokerID != 1001 || b.Listeners[0].Port != 40001 || b.AdvertisedListeners[0].Port != 40001 {
		t.Errorf("lost server-filled fields: id %d, %v, %v", b.BrokerID, b.Listeners, b.AdvertisedListeners)
	}
	if v, _ := b.Describe("broker.id"); v.Value != "1001" {
		t.Errorf("described broker.id %q", v.Value)
	}
}

func TestCloneIndependent(t *testing.T) {
	a := Default()
	c := a.Clone()
	if err := c.Set("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	c.LogDirs[0] = "/changed"
	c.ListenerSecurityProtocolMap["X"] = "PLAINTEXT"
	if a.MinInsyncReplicas != 1 || a.LogDirs[0] != "/tmp/kafka-logs" || a.ListenerSecurityProtocolMap["X"] != "" {
		t.Error("changing the clone changed the original")
	}
	if _, src, _ := a.Get("min.insync.replicas"); src != DefaultConfig {
		t.Errorf("original source %v", src)
	}
}

// TestWithDynamic: the stored per-broker value wins over the stored cluster
// default, which wins over the static value; a stored value that does not
// apply is skipped, naming the key, and the rest still apply; the static
// configuration is left as it was.
func TestWithDynamic(t *testing.T) {
	static := mustParse(t, map[string]string{"message.max.bytes": "1000", "log.cleaner.threads": "1", "broker.id": "7"})
	next, skipped := static.WithDynamic(
		map[string]string{"message.max.bytes": "2000", "log.cleaner.threads": "2", "log.retention.ms": "not-a-number"},
		map[string]string{"message.max.bytes": "3000", "broker.id": "8"},
	)
	if next.MessageMaxBytes != 3000 || next.LogCleanerThreads != 2 {
		t.Errorf("message.max.bytes %d (want the broker's 3000), log.cleaner.threads %d (want the default's 2)", next.MessageMaxBytes, next.LogCleanerThreads)
	}
	if next.BrokerID != 7 {
		t.Errorf("a read-only key was applied: broker.id %d", next.BrokerID)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Error(), "log.retention.ms") || !strings.Contains(skipped[1].Error(), "broker.id") {
		t.Errorf("skipped %v, want log.retention.ms then broker.id", skipped)
	}
	if static.MessageMaxBytes != 1000 || static.LogCleanerThreads != 1 {
		t.Errorf("static config changed: %d %d", static.MessageMaxBytes, static.LogCleanerThreads)
	}
}
