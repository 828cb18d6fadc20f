package config

import (
	"maps"
	"sort"
	"strconv"

	"kafgo/broker/principal"
)

// Broker is the typed, validated broker configuration. Field comments give
// the server.properties key; DescribeConfigs-style detail (source,
// synonyms) comes from Values.
//
// The fields are derived from three layers of raw values, highest
// precedence first: dynamic per-broker (Set), dynamic cluster default
// (SetClusterDefault), static (file and command line), then Kafka's
// defaults. Treat the fields as read-only, except BrokerID, Listeners and
// AdvertisedListeners, which the server may fill in (a generated id, ports
// bound for port 0) and which Set carries over unchanged.
//
// A Broker is not safe for concurrent use: to change it while others read
// it, Clone it, Set on the clone and publish the clone (atomic.Pointer).
type Broker struct {
	// Server basics.
	BrokerID                 int32  // broker.id; -1 resolved to 0 on the embedded store (see doc.go)
	BrokerIDGenerationEnable bool   // broker.id.generation.enable
	ReservedBrokerMaxID      int32  // reserved.broker.max.id
	BrokerRack               string // broker.rack ("" when unset)
	AdminListener            string // admin.listener, kafgo only: host:port of HTTP /metrics and /v1; "" = off
	AdminPprofEnable         bool   // admin.pprof.enable, kafgo only: /debug/pprof on admin.listener
	// ConsumerHealthSampleIntervalMs is consumer.health.sample.interval.ms,
	// kafgo only: the coordinator's consumer health sampling period.
	ConsumerHealthSampleIntervalMs int64
	AutoCreateTopicsEnable         bool   // auto.create.topics.enable
	DeleteTopicEnable              bool   // delete.topic.enable
	NumPartitions                  int32  // num.partitions
	DefaultReplicationFactor       int16  // default.replication.factor
	MinInsyncReplicas              int32  // min.insync.replicas
	UncleanLeaderElectionEnable    bool   // unclean.leader.election.enable
	CompressionType                string // compression.type, lower case
	MessageMaxBytes                int32  // message.max.bytes
	InterBrokerProtocolVersion     string // inter.broker.protocol.version (accepted, reported)
	BackgroundThreads              int32  // background.threads
	NumIoThreads                   int32  // num.io.threads
	NumNetworkThreads              int32  // num.network.threads (accepted for compatibility)
	NumRecoveryThreadsPerDataDir   int32  // num.recovery.threads.per.data.dir
	QueuedMaxRequests              int32  // queued.max.requests
	QueuedMaxRequestBytes          int64  // queued.max.request.bytes; -1 = unbounded
	RequestTimeoutMs               int32  // request.timeout.ms (inter-broker requests)

	// Authorizer.
	AuthorizerClassName       string                // authorizer.class.name: "" or Kafka's ACL authorizer
	SuperUsers                []principal.Principal // super.users
	AllowEveryoneIfNoACLFound bool                  // allow.everyone.if.no.acl.found

	// Socket server.
	Listeners                            []Listener        // listeners
	AdvertisedListeners                  []Listener        // advertised.listeners, else listeners; empty host → host name
	ListenerSecurityProtocolMap          map[string]string // listener.security.protocol.map, names and protocols upper case
	InterBrokerListenerName              string            // inter.broker.listener.name, else security.inter.broker.protocol
	SocketSendBufferBytes                int32             // socket.send.buffer.bytes; -1 = OS default
	SocketReceiveBufferBytes             int32             // socket.receive.buffer.bytes; -1 = OS default
	SocketRequestMaxBytes                int32             // socket.request.max.bytes
	SocketListenBacklogSize              int32             // socket.listen.backlog.size
	ConnectionsMaxIdleMs                 int64             // connections.max.idle.ms; -1 = never
	MaxConnections                       int32             // max.connections
	MaxConnectionsPerIP                  int32             // max.connections.per.ip
	MaxConnectionsPerIPOverrides         map[string]int32  // max.connections.per.ip.overrides
	MaxConnectionCreationRate            int32             // max.connection.creation.rate
	FetchMaxBytes                        int32             // fetch.max.bytes
	MaxIncrementalFetchSessionCacheSlots int32             // max.incremental.fetch.session.cache.slots

	// Log.
	LogDirs                                 []string // log.dirs, else log.dir
	LogSegmentBytes                         int64    // log.segment.bytes
	LogRollMs                               int64    // log.roll.ms, else log.roll.hours
	LogRollJitterMs                         int64    // log.roll.jitter.ms, else log.roll.jitter.hours
	LogIndexSizeMaxBytes                    int32    // log.index.size.max.bytes
	LogIndexIntervalBytes                   int32    // log.index.interval.bytes
	LogPreallocate                          bool     // log.preallocate
	LogMessageFormatVersion                 string   // log.message.format.version (accepted, reported)
	MessageTimestampType                    string   // log.message.timestamp.type: CreateTime | LogAppendTime
	LogMessageTimestampDifferenceMaxMs      int64    // log.message.timestamp.difference.max.ms
	LogMessageDownconversionEnable          bool     // log.message.downconversion.enable
	LogFlushIntervalMessages                int64    // log.flush.interval.messages
	LogFlushIntervalMs                      int64    // log.flush.interval.ms, else log.flush.scheduler.interval.ms
	LogFlushSchedulerIntervalMs             int64    // log.flush.scheduler.interval.ms
	LogFlushOffsetCheckpointIntervalMs      int32    // log.flush.offset.checkpoint.interval.ms
	LogFlushStartOffsetCheckpointIntervalMs int32    // log.flush.start.offset.checkpoint.interval.ms
	LogRetentionMs                          int64    // log.retention.ms, else .minutes, else .hours; -1 = forever
	LogRetentionBytes                       int64    // log.retention.bytes; -1 = no limit
	LogRetentionCheckIntervalMs             int64    // log.retention.check.interval.ms
	LogSegmentDeleteDelayMs                 int64    // log.segment.delete.delay.ms
	LogCleanupPolicy                        []string // log.cleanup.policy: delete and/or compact
	LogCleanerEnable                        bool     // log.cleaner.enable
	LogCleanerThreads                       int32    // log.cleaner.threads
	LogOpenFilesMax                         int32    // log.open.files.max, kafgo only: 0 = half of RLIMIT_NOFILE
	LogCleanerIoMaxBytesPerSecond           float64  // log.cleaner.io.max.bytes.per.second
	LogCleanerDedupeBufferSize              int64    // log.cleaner.dedupe.buffer.size
	LogCleanerIoBufferSize                  int32    // log.cleaner.io.buffer.size
	LogCleanerIoBufferLoadFactor            float64  // log.cleaner.io.buffer.load.factor
	LogCleanerBackoffMs                     int64    // log.cleaner.backoff.ms
	LogCleanerMinCleanableRatio             float64  // log.cleaner.min.cleanable.ratio
	LogCleanerDeleteRetentionMs             int64    // log.cleaner.delete.retention.ms
	LogCleanerMinCompactionLagMs            int64    // log.cleaner.min.compaction.lag.ms
	LogCleanerMaxCompactionLagMs            int64    // log.cleaner.max.compaction.lag.ms

	// Replication.
	ControllerSocketTimeoutMs                   int32 // controller.socket.timeout.ms
	ReplicaLagTimeMaxMs                         int64 // replica.lag.time.max.ms
	ReplicaSocketTimeoutMs                      int32 // replica.socket.timeout.ms
	ReplicaSocketReceiveBufferBytes             int32 // replica.socket.receive.buffer.bytes
	ReplicaFetchMaxBytes                        int32 // replica.fetch.max.bytes
	ReplicaFetchMinBytes                        int32 // replica.fetch.min.bytes
	ReplicaFetchWaitMaxMs                       int32 // replica.fetch.wait.max.ms
	ReplicaFetchBackoffMs                       int32 // replica.fetch.backoff.ms
	ReplicaFetchResponseMaxBytes                int32 // replica.fetch.response.max.bytes
	NumReplicaFetchers                          int32 // num.replica.fetchers
	LeaderReplicationThrottledRate              int64 // leader.replication.throttled.rate, bytes/s
	FollowerReplicationThrottledRate            int64 // follower.replication.throttled.rate, bytes/s
	ReplicationQuotaWindowNum                   int32 // replication.quota.window.num
	ReplicationQuotaWindowSizeSeconds           int32 // replication.quota.window.size.seconds
	ReplicaHighWatermarkCheckpointIntervalMs    int64 // replica.high.watermark.checkpoint.interval.ms
	FetchPurgatoryPurgeIntervalRequests         int32 // fetch.purgatory.purge.interval.requests
	ProducerPurgatoryPurgeIntervalRequests      int32 // producer.purgatory.purge.interval.requests
	DeleteRecordsPurgatoryPurgeIntervalRequests int32 // delete.records.purgatory.purge.interval.requests
	AutoLeaderRebalanceEnable                   bool  // auto.leader.rebalance.enable
	LeaderImbalancePerBrokerPercentage          int32 // leader.imbalance.per.broker.percentage
	LeaderImbalanceCheckIntervalSeconds         int64 // leader.imbalance.check.interval.seconds
	ControlledShutdownEnable                    bool  // controlled.shutdown.enable
	ControlledShutdownMaxRetries                int32 // controlled.shutdown.max.retries
	ControlledShutdownRetryBackoffMs            int64 // controlled.shutdown.retry.backoff.ms

	// Client quotas (broker_defs_quota.go).
	QuotaProducerDefault   int64 // quota.producer.default, bytes/s
	QuotaConsumerDefault   int64 // quota.consumer.default, bytes/s
	QuotaWindowNum         int32 // quota.window.num
	QuotaWindowSizeSeconds int32 // quota.window.size.seconds
	MetricsNumSamples      int32 // metrics.num.samples (throttle-time averages)
	MetricsSampleWindowMs  int64 // metrics.sample.window.ms

	// ZooKeeper. An empty ZooKeeperConnect selects the embedded store.
	ZooKeeperConnect             string   // zookeeper.connect as given
	ZooKeeperServers             []string // its host:port servers, default port 2181 filled in
	ZooKeeperChroot              string   // its chroot ("" for none)
	ZooKeeperSessionTimeoutMs    int32    // zookeeper.session.timeout.ms
	ZooKeeperConnectionTimeoutMs int32    // zookeeper.connection.timeout.ms, else the session timeout
	ZooKeeperSyncTimeMs          int32    // zookeeper.sync.time.ms
	ZooKeeperMaxInFlightRequests int32    // zookeeper.max.in.flight.requests

	// Group coordinator and offsets.
	GroupMinSessionTimeoutMs        int32 // group.min.session.timeout.ms
	GroupMaxSessionTimeoutMs        int32 // group.max.session.timeout.ms
	GroupInitialRebalanceDelayMs    int32 // group.initial.rebalance.delay.ms
	GroupMaxSize                    int32 // group.max.size
	OffsetMetadataMaxBytes          int32 // offset.metadata.max.bytes
	OffsetsLoadBufferSize           int32 // offsets.load.buffer.size
	OffsetsTopicReplicationFactor   int16 // offsets.topic.replication.factor
	OffsetsTopicNumPartitions       int32 // offsets.topic.num.partitions
	OffsetsTopicSegmentBytes        int32 // offsets.topic.segment.bytes
	OffsetsTopicCompressionCodec    int32 // offsets.topic.compression.codec: 0 none .. 4 zstd
	OffsetsRetentionMinutes         int32 // offsets.retention.minutes
	OffsetsRetentionCheckIntervalMs int64 // offsets.retention.check.interval.ms
	OffsetsCommitTimeoutMs          int32 // offsets.commit.timeout.ms
	OffsetsCommitRequiredAcks       int16 // offsets.commit.required.acks

	// Transactions and idempotence.
	TransactionalIDExpirationMs                          int32 // transactional.id.expiration.ms
	TransactionMaxTimeoutMs                              int32 // transaction.max.timeout.ms
	TransactionStateLogLoadBufferSize                    int32 // transaction.state.log.load.buffer.size
	TransactionStateLogReplicationFactor                 int16 // transaction.state.log.replication.factor
	TransactionStateLogNumPartitions                     int32 // transaction.state.log.num.partitions
	TransactionStateLogSegmentBytes                      int32 // transaction.state.log.segment.bytes
	TransactionStateLogMinIsr                            int32 // transaction.state.log.min.isr
	TransactionAbortTimedOutTransactionCleanupIntervalMs int32 // transaction.abort.timed.out.transaction.cleanup.interval.ms
	TransactionRemoveExpiredTransactionCleanupIntervalMs int32 // transaction.remove.expired.transaction.cleanup.interval.ms
	ProducerIDExpirationMs                               int32 // producer.id.expiration.ms
	ProducerIDExpirationCheckIntervalMs                  int32 // producer.id.expiration.check.interval.ms

	l *layers
	// notices is the start-up report (Notices).
	notices []Notice
}

// layers holds the raw, canonical values by precedence, plus where each
// static value came from so late (cross-key) errors can still point at a
// file line.
type layers struct {
	dynBroker  map[string]string
	dynDefault map[string]string
	static     map[string]string
	origins    map[string]origin
}

func newLayers() *layers {
	return &layers{
		dynBroker:  map[string]string{},
		dynDefault: map[string]string{},
		static:     map[string]string{},
		origins:    map[string]origin{},
	}
}

// ls returns b's layers; a zero Broker (not built by Parse or Load) reads
// as all defaults rather than panicking.
func (b *Broker) ls() *layers {
	if b.l == nil {
		b.l = newLayers()
	}
	return b.l
}

func (l *layers) clone() *layers {
	return &layers{
		dynBroker:  maps.Clone(l.dynBroker),
		dynDefault: maps.Clone(l.dynDefault),
		static:     maps.Clone(l.static),
		origins:    maps.Clone(l.origins),
	}
}

// lookup returns the effective raw value of a known key and its source;
// ok is false for a nullable key set nowhere.
func (l *layers) lookup(name string) (v string, src Source, ok bool) {
	if v, ok := l.dynBroker[name]; ok {
		return v, DynamicBrokerConfig, true
	}
	if v, ok := l.dynDefault[name]; ok {
		return v, DynamicDefaultBrokerConfig, true
	}
	if v, ok := l.static[name]; ok {
		return v, StaticBrokerConfig, true
	}
	d, _ := lookupDef(name)
	if d == nil || d.Nullable {
		return "", DefaultConfig, false
	}
	return d.Default, DefaultConfig, true
}

// Default returns the configuration with every key at Kafka's default
// (listeners PLAINTEXT://:9092, log.dirs /tmp/kafka-logs, embedded store).
func Default() *Broker {
	b, err := Parse(nil)
	if err != nil {
		// The defaults are constants validated by the tests.
		panic(err)
	}
	return b
}

// Parse builds a Broker from server.properties-style key/value pairs,
// keys named exactly as Kafka names them. Unknown keys and bad values are
// refused; every problem found is reported, each naming its key.
func Parse(values map[string]string) (*Broker, error) {
	return parseStatic(values, nil, nil, nil)
}

// parseStatic validates raw static values (origins optional, for error
// locations) and resolves them into a Broker. Errors found earlier (while
// reading a file) are reported together with the ones found here, and
// notices found earlier (a repeated key) join the start-up report. Kafka
// keys kafgo does not define are translated, ignored or refused first
// (compatTranslate).
func parseStatic(values map[string]string, origins map[string]origin, prior []*Error, notes []Notice) (*Broker, error) {
	l := newLayers()
	values, origins = maps.Clone(values), maps.Clone(origins)
	if origins == nil {
		origins = map[string]origin{}
	}
	compatNotes, errs := compatTranslate(values, origins)
	errs = append(prior, errs...)
	notes = append(notes, compatNotes...)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := values[k]
		o := origins[k]
		d, ok := lookupDef(k)
		if !ok {
			errs = append(errs, o.apply(unknownKeyError(k, v, brokerIndex)))
			continue
		}
		cv, err := d.canonical(v)
		if err != nil {
			errs = append(errs, o.apply(err.(*Error)))
			continue
		}
		l.static[k] = cv
		l.origins[k] = o
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	b, err := resolve(l)
	if err != nil {
		return nil, err
	}
	b.notices = notes
	return b, nil
}

// Clone returns a deep copy, safe to change while b is still being read.
func (b *Broker) Clone() *Broker {
	c := *b
	c.Listeners = append([]Listener(nil), b.Listeners...)
	c.AdvertisedListeners = append([]Listener(nil), b.AdvertisedListeners...)
	c.ListenerSecurityProtocolMap = maps.Clone(b.ListenerSecurityProtocolMap)
	c.MaxConnectionsPerIPOverrides = maps.Clone(b.MaxConnectionsPerIPOverrides)
	c.LogDirs = append([]string(nil), b.LogDirs...)
	c.LogCleanupPolicy = append([]string(nil), b.LogCleanupPolicy...)
	c.ZooKeeperServers = append([]string(nil), b.ZooKeeperServers...)
	if b.l != nil {
		c.l = b.l.clone()
	}
	c.notices = append([]Notice(nil), b.notices...)
	return &c
}

// Embedded reports whether the broker runs on the embedded single-broker
// metadata store (no zookeeper.connect).
func (b *Broker) Embedded() bool { return b.ZooKeeperConnect == "" }

// Get returns the effective raw value of a broker key and its source; ok
// is false for an unknown key or a nullable key that is unset.
func (b *Broker) Get(name string) (value string, src Source, ok bool) {
	if _, known := lookupDef(name); !known {
		return "", SourceUnknown, false
	}
	if name == "broker.id" {
		// Report the id in use, which differs from the raw -1 once resolved
		// on the embedded store or generated by the metadata store.
		_, src, _ := b.ls().lookup(name)
		return strconv.Itoa(int(b.BrokerID)), src, true
	}
	return b.ls().lookup(name)
}

// StaticValues returns the static layer: every key given in the file or
// on the command line, canonicalised.
func (b *Broker) StaticValues() map[string]string { return maps.Clone(b.ls().static) }

// DynamicBrokerConfigs returns the per-broker dynamic layer, for
// persisting to /config/brokers/<id>.
func (b *Broker) DynamicBrokerConfigs() map[string]string { return maps.Clone(b.ls().dynBroker) }

// DynamicDefaultConfigs returns the cluster-default dynamic layer, for
// persisting to /config/brokers/<default>.
func (b *Broker) DynamicDefaultConfigs() map[string]string { return maps.Clone(b.ls().dynDefault) }
