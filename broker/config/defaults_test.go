package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// testHost is what advertised listeners with an empty host resolve to in
// these tests.
const testHost = "broker.test"

func TestMain(m *testing.M) {
	hostname = func() (string, error) { return testHost, nil }
	os.Exit(m.Run())
}

func mustParse(t *testing.T, values map[string]string) *Broker {
	t.Helper()
	b, err := Parse(values)
	if err != nil {
		t.Fatalf("Parse(%v): %v", values, err)
	}
	return b
}

// TestDefaults pins the typed defaults to Kafka's documented values.
func TestDefaults(t *testing.T) {
	b := Default()
	tests := []struct {
		key  string
		got  any
		want any
	}{
		{"broker.id (embedded → 0)", b.BrokerID, int32(0)},
		{"listeners", b.Listeners, []Listener{{Name: "PLAINTEXT", Host: "", Port: 9092}}},
		{"advertised.listeners", b.AdvertisedListeners, []Listener{{Name: "PLAINTEXT", Host: testHost, Port: 9092}}},
		{"listener.security.protocol.map", b.ListenerSecurityProtocolMap, map[string]string{
			"PLAINTEXT": "PLAINTEXT", "SSL": "SSL", "SASL_PLAINTEXT": "SASL_PLAINTEXT", "SASL_SSL": "SASL_SSL"}},
		{"inter.broker.listener.name", b.InterBrokerListenerName, "PLAINTEXT"},
		{"log.dirs", b.LogDirs, []string{"/tmp/kafka-logs"}},
		{"num.partitions", b.NumPartitions, int32(1)},
		{"default.replication.factor", b.DefaultReplicationFactor, int16(1)},
		{"auto.create.topics.enable", b.AutoCreateTopicsEnable, true},
		{"delete.topic.enable", b.DeleteTopicEnable, true},
		{"log.segment.bytes", b.LogSegmentBytes, int64(1 << 30)},
		{"log.roll.hours → ms", b.LogRollMs, int64(168 * 3600 * 1000)},
		{"log.roll.jitter", b.LogRollJitterMs, int64(0)},
		{"log.retention.hours → ms", b.LogRetentionMs, int64(168 * 3600 * 1000)},
		{"log.retention.bytes", b.LogRetentionBytes, int64(-1)},
		{"log.retention.check.interval.ms", b.LogRetentionCheckIntervalMs, int64(300000)},
		{"log.segment.delete.delay.ms", b.LogSegmentDeleteDelayMs, int64(60000)},
		{"log.index.interval.bytes", b.LogIndexIntervalBytes, int32(4096)},
		{"log.index.size.max.bytes", b.LogIndexSizeMaxBytes, int32(10485760)},
		{"log.flush.interval.messages", b.LogFlushIntervalMessages, int64(9223372036854775807)},
		{"log.flush.interval.ms (null → scheduler)", b.LogFlushIntervalMs, int64(9223372036854775807)},
		{"log.flush.scheduler.interval.ms", b.LogFlushSchedulerIntervalMs, int64(9223372036854775807)},
		{"log.cleanup.policy", b.LogCleanupPolicy, []string{"delete"}},
		{"log.cleaner.enable", b.LogCleanerEnable, true},
		{"log.cleaner.threads", b.LogCleanerThreads, int32(1)},
		{"log.open.files.max", b.LogOpenFilesMax, int32(0)},
		{"log.cleaner.delete.retention.ms", b.LogCleanerDeleteRetentionMs, int64(86400000)},
		{"log.cleaner.min.cleanable.ratio", b.LogCleanerMinCleanableRatio, 0.5},
		{"log.cleaner.min.compaction.lag.ms", b.LogCleanerMinCompactionLagMs, int64(0)},
		{"log.cleaner.max.compaction.lag.ms", b.LogCleanerMaxCompactionLagMs, int64(9223372036854775807)},
		{"log.cleaner.backoff.ms", b.LogCleanerBackoffMs, int64(15000)},
		{"log.cleaner.dedupe.buffer.size", b.LogCleanerDedupeBufferSize, int64(128 << 20)},
		{"log.cleaner.io.max.bytes.per.second", b.LogCleanerIoMaxBytesPerSecond, 1.7976931348623157e308},
		{"message.max.bytes", b.MessageMaxBytes, int32(1048588)},
		{"log.message.timestamp.type", b.MessageTimestampType, "CreateTime"},
		{"compression.type", b.CompressionType, "producer"},
		{"min.insync.replicas", b.MinInsyncReplicas, int32(1)},
		{"unclean.leader.election.enable", b.UncleanLeaderElectionEnable, false},
		{"socket.request.max.bytes", b.SocketRequestMaxBytes, int32(104857600)},
		{"socket.send.buffer.bytes", b.SocketSendBufferBytes, int32(102400)},
		{"socket.receive.buffer.bytes", b.SocketReceiveBufferBytes, int32(102400)},
		{"connections.max.idle.ms", b.ConnectionsMaxIdleMs, int64(600000)},
		{"num.network.threads", b.NumNetworkThreads, int32(3)},
		{"num.io.threads", b.NumIoThreads, int32(8)},
		{"queued.max.requests", b.QueuedMaxRequests, int32(500)},
		{"zookeeper.connect", b.ZooKeeperConnect, ""},
		{"zookeeper.session.timeout.ms", b.ZooKeeperSessionTimeoutMs, int32(18000)},
		{"zookeeper.connection.timeout.ms (null → session)", b.ZooKeeperConnectionTimeoutMs, int32(18000)},
		{"controlled.shutdown.enable", b.ControlledShutdownEnable, true},
		{"controlled.shutdown.max.retries", b.ControlledShutdownMaxRetries, int32(3)},
		{"controlled.shutdown.retry.backoff.ms", b.ControlledShutdownRetryBackoffMs, int64(5000)},
		{"auto.leader.rebalance.enable", b.AutoLeaderRebalanceEnable, true},
		{"leader.imbalance.check.interval.seconds", b.LeaderImbalanceCheckIntervalSeconds, int64(300)},
		{"leader.imbalance.per.broker.percentage", b.LeaderImbalancePerBrokerPercentage, int32(10)},
		{"replica.lag.time.max.ms", b.ReplicaLagTimeMaxMs, int64(30000)},
		{"replica.fetch.max.bytes", b.ReplicaFetchMaxBytes, int32(1048576)},
		{"replica.fetch.min.bytes", b.ReplicaFetchMinBytes, int32(1)},
		{"replica.fetch.wait.max.ms", b.ReplicaFetchWaitMaxMs, int32(500)},
		{"replica.fetch.response.max.bytes", b.ReplicaFetchResponseMaxBytes, int32(10485760)},
		{"replica.fetch.backoff.ms", b.ReplicaFetchBackoffMs, int32(1000)},
		{"num.replica.fetchers", b.NumReplicaFetchers, int32(1)},
		{"leader.replication.throttled.rate", b.LeaderReplicationThrottledRate, int64(9223372036854775807)},
		{"follower.replication.throttled.rate", b.FollowerReplicationThrottledRate, int64(9223372036854775807)},
		{"replication.quota.window.num", b.ReplicationQuotaWindowNum, int32(11)},
		{"replication.quota.window.size.seconds", b.ReplicationQuotaWindowSizeSeconds, int32(1)},
		{"quota.producer.default", b.QuotaProducerDefault, int64(9223372036854775807)},
		{"quota.consumer.default", b.QuotaConsumerDefault, int64(9223372036854775807)},
		{"quota.window.num", b.QuotaWindowNum, int32(11)},
		{"quota.window.size.seconds", b.QuotaWindowSizeSeconds, int32(1)},
		{"metrics.num.samples", b.MetricsNumSamples, int32(2)},
		{"metrics.sample.window.ms", b.MetricsSampleWindowMs, int64(30000)},
		{"replica.high.watermark.checkpoint.interval.ms", b.ReplicaHighWatermarkCheckpointIntervalMs, int64(5000)},
		{"replica.socket.timeout.ms", b.ReplicaSocketTimeoutMs, int32(30000)},
		{"offsets.topic.num.partitions", b.OffsetsTopicNumPartitions, int32(50)},
		{"offsets.topic.replication.factor", b.OffsetsTopicReplicationFactor, int16(3)},
		{"offsets.topic.segment.bytes", b.OffsetsTopicSegmentBytes, int32(104857600)},
		{"offsets.retention.minutes", b.OffsetsRetentionMinutes, int32(10080)},
		{"offsets.retention.check.interval.ms", b.OffsetsRetentionCheckIntervalMs, int64(600000)},
		{"offsets.commit.timeout.ms", b.OffsetsCommitTimeoutMs, int32(5000)},
		{"offsets.load.buffer.size", b.OffsetsLoadBufferSize, int32(5242880)},
		{"offset.metadata.max.bytes", b.OffsetMetadataMaxBytes, int32(4096)},
		{"group.initial.rebalance.delay.ms", b.GroupInitialRebalanceDelayMs, int32(3000)},
		{"group.min.session.timeout.ms", b.GroupMinSessionTimeoutMs, int32(6000)},
		{"group.max.session.timeout.ms", b.GroupMaxSessionTimeoutMs, int32(1800000)},
		{"group.max.size", b.GroupMaxSize, int32(2147483647)},
		{"transactional.id.expiration.ms", b.TransactionalIDExpirationMs, int32(604800000)},
		{"transaction.state.log.replication.factor", b.TransactionStateLogReplicationFactor, int16(3)},
		{"transaction.state.log.min.isr", b.TransactionStateLogMinIsr, int32(2)},
		{"transaction.state.log.num.partitions", b.TransactionStateLogNumPartitions, int32(50)},
		{"producer.id.expiration.ms", b.ProducerIDExpirationMs, int32(86400000)},
		{"request.timeout.ms", b.RequestTimeoutMs, int32(30000)},
		{"admin.listener", b.AdminListener, ""},
		{"admin.pprof.enable", b.AdminPprofEnable, false},
		{"consumer.health.sample.interval.ms", b.ConsumerHealthSampleIntervalMs, int64(5000)},
		{"fetch.max.bytes", b.FetchMaxBytes, int32(55 << 20)},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
}

// TestDefsConsistent checks the tables themselves: every default passes
// its own validation and is reported back unchanged, and names are unique.
func TestDefsConsistent(t *testing.T) {
	b := Default()
	for _, d := range BrokerDefs {
		t.Run(d.Name, func(t *testing.T) {
			if d.Nullable {
				if d.Default != "" {
					t.Errorf("nullable key has default %q", d.Default)
				}
				return
			}
			if err := d.Validate(d.Default); err != nil {
				t.Errorf("default %q fails validation: %v", d.Default, err)
			}
			v, ok := b.Describe(d.Name)
			if !ok || v.Source != DefaultConfig {
				t.Fatalf("Describe = %+v, %v", v, ok)
			}
			if d.Name != "broker.id" && !d.Sensitive && v.Value != d.Default {
				t.Errorf("described value %q, want default %q", v.Value, d.Default)
			}
			if d.Doc == "" {
				t.Error("no doc")
			}
		})
	}
	for _, d := range TopicDefs {
		t.Run("topic/"+d.Name, func(t *testing.T) {
			if err := d.Validate(d.Default); err != nil {
				t.Errorf("default %q fails validation: %v", d.Default, err)
			}
			if d.BrokerSynonym != "" {
				if _, ok := brokerIndex[d.BrokerSynonym]; !ok {
					t.Errorf("broker synonym %s is not a broker key", d.BrokerSynonym)
				}
			}
		})
	}
}

// TestTopicDefaultsMatchBroker checks that a topic without overrides on a
// default broker gets Kafka's topic-level defaults: the broker-side
// defaults and topic-side defaults agree, as they do in Kafka.
func TestTopicDefaultsMatchBroker(t *testing.T) {
	b := Default()
	for _, v := range b.DescribeTopic(nil) {
		t.Run(v.Name, func(t *testing.T) {
			d := topicIndex[v.Name]
			if v.Value != d.Default {
				t.Errorf("effective %q, topic default %q", v.Value, d.Default)
			}
			if v.Source != DefaultConfig {
				t.Errorf("source %v, want DEFAULT_CONFIG", v.Source)
			}
		})
	}
}

func TestZeroBrokerReadsAsDefaults(t *testing.T) {
	var b Broker
	v, _, ok := b.Get("num.partitions")
	if !ok || v != "1" {
		t.Fatalf("Get on zero Broker = %q, %v", v, ok)
	}
	if err := b.Set("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if b.MinInsyncReplicas != 2 || b.NumPartitions != 1 {
		t.Fatalf("after Set: min.insync.replicas=%d num.partitions=%d", b.MinInsyncReplicas, b.NumPartitions)
	}
}

func TestNamesSorted(t *testing.T) {
	names := BrokerNames()
	if len(names) != len(BrokerDefs) {
		t.Fatalf("%d names for %d defs", len(names), len(BrokerDefs))
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("not sorted at %s, %s", names[i-1], names[i])
		}
	}
	if _, ok := LookupDef("log.dirs"); !ok {
		t.Error("LookupDef(log.dirs) not found")
	}
	if _, ok := LookupDef("nope"); ok {
		t.Error("LookupDef(nope) found")
	}
	if _, ok := LookupTopicDef("retention.ms"); !ok {
		t.Error("LookupTopicDef(retention.ms) not found")
	}
	if got := TopicNames(); len(got) != len(TopicDefs) || !strings.HasPrefix(got[0], "cleanup") {
		t.Errorf("TopicNames = %v", got)
	}
}
