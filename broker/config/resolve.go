package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// resolver reads effective values out of the layers while the typed
// fields are derived, collecting errors instead of stopping at the first.
// Values reaching it were validated on the way in, so parse failures here
// mean a bug and are still reported rather than ignored.
type resolver struct {
	l    *layers
	errs []*Error
}

func (r *resolver) raw(name string) (string, bool) {
	v, _, ok := r.l.lookup(name)
	return v, ok
}

func (r *resolver) str(name string) string {
	v, _ := r.raw(name)
	return v
}

// isNull reports a nullable key that no layer sets.
func (r *resolver) isNull(name string) bool {
	_, ok := r.raw(name)
	return !ok
}

// isExplicit reports a key some layer sets, even to its default value:
// Kafka's "only one of X and Y" rules look at what the operator wrote.
func (r *resolver) isExplicit(name string) bool {
	_, src, ok := r.l.lookup(name)
	return ok && src != DefaultConfig
}

func (r *resolver) fail(key, value string, err error) {
	r.add(keyError(key, value, err))
}

// add records e, located at the file line or flag that set its key.
func (r *resolver) add(e *Error) {
	if _, src, _ := r.l.lookup(e.Key); src == StaticBrokerConfig {
		r.l.origins[e.Key].apply(e)
	}
	r.errs = append(r.errs, e)
}

func (r *resolver) integer(name string, bits int) int64 {
	v := r.str(name)
	n, err := parseInt(v, bits)
	if err != nil {
		r.fail(name, v, err)
	}
	return n
}

func (r *resolver) i64(name string) int64 { return r.integer(name, 64) }
func (r *resolver) i32(name string) int32 { return int32(r.integer(name, 32)) }
func (r *resolver) i16(name string) int16 { return int16(r.integer(name, 16)) }

func (r *resolver) f64(name string) float64 {
	v := r.str(name)
	f, err := parseDouble(v)
	if err != nil {
		r.fail(name, v, err)
	}
	return f
}

func (r *resolver) boolean(name string) bool {
	v := r.str(name)
	b, err := parseBool(v)
	if err != nil {
		r.fail(name, v, err)
	}
	return b
}

func (r *resolver) list(name string) []string { return splitList(r.str(name)) }

const (
	msPerMinute = 60 * 1000
	msPerHour   = 60 * msPerMinute
)

// resolve derives a Broker from layers, then checks the rules that span
// several keys.
func resolve(l *layers) (*Broker, error) {
	r := &resolver{l: l}
	b := &Broker{l: l}

	b.BrokerIDGenerationEnable = r.boolean("broker.id.generation.enable")
	b.ReservedBrokerMaxID = r.i32("reserved.broker.max.id")
	b.BrokerID = r.i32("broker.id")
	b.BrokerRack = r.str("broker.rack")
	b.AdminListener = r.str("admin.listener")
	b.AdminPprofEnable = r.boolean("admin.pprof.enable")
	b.ConsumerHealthSampleIntervalMs = r.i64("consumer.health.sample.interval.ms")
	b.AutoCreateTopicsEnable = r.boolean("auto.create.topics.enable")
	b.DeleteTopicEnable = r.boolean("delete.topic.enable")
	b.NumPartitions = r.i32("num.partitions")
	b.DefaultReplicationFactor = int16(r.i32("default.replication.factor"))
	b.MinInsyncReplicas = r.i32("min.insync.replicas")
	b.UncleanLeaderElectionEnable = r.boolean("unclean.leader.election.enable")
	b.CompressionType = strings.ToLower(r.str("compression.type"))
	b.MessageMaxBytes = r.i32("message.max.bytes")
	b.InterBrokerProtocolVersion = r.str("inter.broker.protocol.version")
	b.BackgroundThreads = r.i32("background.threads")
	b.NumIoThreads = r.i32("num.io.threads")
	b.NumNetworkThreads = r.i32("num.network.threads")
	b.NumRecoveryThreadsPerDataDir = r.i32("num.recovery.threads.per.data.dir")
	b.QueuedMaxRequests = r.i32("queued.max.requests")
	b.QueuedMaxRequestBytes = r.i64("queued.max.request.bytes")
	b.RequestTimeoutMs = r.i32("request.timeout.ms")
	r.resolveAuthorizer(b)

	r.resolveListeners(b)
	b.SocketSendBufferBytes = r.i32("socket.send.buffer.bytes")
	b.SocketReceiveBufferBytes = r.i32("socket.receive.buffer.bytes")
	b.SocketRequestMaxBytes = r.i32("socket.request.max.bytes")
	b.SocketListenBacklogSize = r.i32("socket.listen.backlog.size")
	b.ConnectionsMaxIdleMs = r.i64("connections.max.idle.ms")
	b.MaxConnections = r.i32("max.connections")
	b.MaxConnectionsPerIP = r.i32("max.connections.per.ip")
	if ov, err := parseConnOverrides(r.str("max.connections.per.ip.overrides")); err != nil {
		r.fail("max.connections.per.ip.overrides", r.str("max.connections.per.ip.overrides"), err)
	} else {
		b.MaxConnectionsPerIPOverrides = ov
	}
	b.MaxConnectionCreationRate = r.i32("max.connection.creation.rate")
	b.FetchMaxBytes = r.i32("fetch.max.bytes")
	b.MaxIncrementalFetchSessionCacheSlots = r.i32("max.incremental.fetch.session.cache.slots")

	r.resolveLog(b)
	r.resolveQuotas(b)

	b.ControllerSocketTimeoutMs = r.i32("controller.socket.timeout.ms")
	b.ReplicaLagTimeMaxMs = r.i64("replica.lag.time.max.ms")
	b.ReplicaSocketTimeoutMs = r.i32("replica.socket.timeout.ms")
	b.ReplicaSocketReceiveBufferBytes = r.i32("replica.socket.receive.buffer.bytes")
	b.ReplicaFetchMaxBytes = r.i32("replica.fetch.max.bytes")
	b.ReplicaFetchMinBytes = r.i32("replica.fetch.min.bytes")
	b.ReplicaFetchWaitMaxMs = r.i32("replica.fetch.wait.max.ms")
	b.ReplicaFetchBackoffMs = r.i32("replica.fetch.backoff.ms")
	b.ReplicaFetchResponseMaxBytes = r.i32("replica.fetch.response.max.bytes")
	b.NumReplicaFetchers = r.i32("num.replica.fetchers")
	b.LeaderReplicationThrottledRate = r.i64("leader.replication.throttled.rate")
	b.FollowerReplicationThrottledRate = r.i64("follower.replication.throttled.rate")
	b.ReplicationQuotaWindowNum = r.i32("replication.quota.window.num")
	b.ReplicationQuotaWindowSizeSeconds = r.i32("replication.quota.window.size.seconds")
	b.ReplicaHighWatermarkCheckpointIntervalMs = r.i64("replica.high.watermark.checkpoint.interval.ms")
	b.FetchPurgatoryPurgeIntervalRequests = r.i32("fetch.purgatory.purge.interval.requests")
	b.ProducerPurgatoryPurgeIntervalRequests = r.i32("producer.purgatory.purge.interval.requests")
	b.DeleteRecordsPurgatoryPurgeIntervalRequests = r.i32("delete.records.purgatory.purge.interval.requests")
	b.AutoLeaderRebalanceEnable = r.boolean("auto.leader.rebalance.enable")
	b.LeaderImbalancePerBrokerPercentage = r.i32("leader.imbalance.per.broker.percentage")
	b.LeaderImbalanceCheckIntervalSeconds = r.i64("leader.imbalance.check.interval.seconds")
	b.ControlledShutdownEnable = r.boolean("controlled.shutdown.enable")
	b.ControlledShutdownMaxRetries = r.i32("controlled.shutdown.max.retries")
	b.ControlledShutdownRetryBackoffMs = r.i64("controlled.shutdown.retry.backoff.ms")

	b.ZooKeeperConnect = r.str("zookeeper.connect")
	if b.ZooKeeperConnect != "" {
		var err error
		if b.ZooKeeperServers, b.ZooKeeperChroot, err = parseZooKeeperConnect(b.ZooKeeperConnect); err != nil {
			r.fail("zookeeper.connect", b.ZooKeeperConnect, err)
		}
	}
	b.ZooKeeperSessionTimeoutMs = r.i32("zookeeper.session.timeout.ms")
	b.ZooKeeperConnectionTimeoutMs = b.ZooKeeperSessionTimeoutMs
	if !r.isNull("zookeeper.connection.timeout.ms") {
		b.ZooKeeperConnectionTimeoutMs = r.i32("zookeeper.connection.timeout.ms")
	}
	b.ZooKeeperSyncTimeMs = r.i32("zookeeper.sync.time.ms")
	b.ZooKeeperMaxInFlightRequests = r.i32("zookeeper.max.in.flight.requests")

	b.GroupMinSessionTimeoutMs = r.i32("group.min.session.timeout.ms")
	b.GroupMaxSessionTimeoutMs = r.i32("group.max.session.timeout.ms")
	b.GroupInitialRebalanceDelayMs = r.i32("group.initial.rebalance.delay.ms")
	b.GroupMaxSize = r.i32("group.max.size")
	b.OffsetMetadataMaxBytes = r.i32("offset.metadata.max.bytes")
	b.OffsetsLoadBufferSize = r.i32("offsets.load.buffer.size")
	b.OffsetsTopicReplicationFactor = r.i16("offsets.topic.replication.factor")
	b.OffsetsTopicNumPartitions = r.i32("offsets.topic.num.partitions")
	b.OffsetsTopicSegmentBytes = r.i32("offsets.topic.segment.bytes")
	b.OffsetsTopicCompressionCodec = r.i32("offsets.topic.compression.codec")
	b.OffsetsRetentionMinutes = r.i32("offsets.retention.minutes")
	b.OffsetsRetentionCheckIntervalMs = r.i64("offsets.retention.check.interval.ms")
	b.OffsetsCommitTimeoutMs = r.i32("offsets.commit.timeout.ms")
	b.OffsetsCommitRequiredAcks = r.i16("offsets.commit.required.acks")

	b.TransactionalIDExpirationMs = r.i32("transactional.id.expiration.ms")
	b.TransactionMaxTimeoutMs = r.i32("transaction.max.timeout.ms")
	b.TransactionStateLogLoadBufferSize = r.i32("transaction.state.log.load.buffer.size")
	b.TransactionStateLogReplicationFactor = r.i16("transaction.state.log.replication.factor")
	b.TransactionStateLogNumPartitions = r.i32("transaction.state.log.num.partitions")
	b.TransactionStateLogSegmentBytes = r.i32("transaction.state.log.segment.bytes")
	b.TransactionStateLogMinIsr = r.i32("transaction.state.log.min.isr")
	b.TransactionAbortTimedOutTransactionCleanupIntervalMs = r.i32("transaction.abort.timed.out.transaction.cleanup.interval.ms")
	b.TransactionRemoveExpiredTransactionCleanupIntervalMs = r.i32("transaction.remove.expired.transaction.cleanup.interval.ms")
	b.ProducerIDExpirationMs = r.i32("producer.id.expiration.ms")
	b.ProducerIDExpirationCheckIntervalMs = r.i32("producer.id.expiration.check.interval.ms")

	if len(r.errs) == 0 {
		r.crossChecks(b)
	}
	if len(r.errs) == 0 {
		r.resolveSecurity(b)
	}
	if err := joinErrors(r.errs); err != nil {
		return nil, err
	}
	return b, nil
}

// resolveLog derives the log fields, applying Kafka's precedence between
// the millisecond, minute and hour spellings of the same setting.
func (r *resolver) resolveLog(b *Broker) {
	dirKey := "log.dirs"
	if r.isNull(dirKey) {
		dirKey = "log.dir"
	}
	seen := map[string]bool{}
	for _, d := range r.list(dirKey) {
		if d == "" {
			continue
		}
		clean := filepath.Clean(d)
		if seen[clean] {
			r.fail(dirKey, r.str(dirKey), fmt.Errorf("%w: log directory %s listed twice", ErrInvalidValue, d))
		}
		seen[clean] = true
		b.LogDirs = append(b.LogDirs, d)
	}
	if len(b.LogDirs) == 0 {
		r.fail(dirKey, r.str(dirKey), fmt.Errorf("%w: at least one log directory must be given in log.dirs or log.dir", ErrInvalidValue))
	}

	b.LogSegmentBytes = int64(r.i32("log.segment.bytes"))
	b.LogRollMs = r.msOrHours("log.roll.ms", "log.roll.hours")
	b.LogRollJitterMs = r.msOrHours("log.roll.jitter.ms", "log.roll.jitter.hours")
	b.LogIndexSizeMaxBytes = r.i32("log.index.size.max.bytes")
	b.LogIndexIntervalBytes = r.i32("log.index.interval.bytes")
	b.LogPreallocate = r.boolean("log.preallocate")
	b.LogMessageFormatVersion = r.str("log.message.format.version")
	b.MessageTimestampType = r.str("log.message.timestamp.type")
	b.LogMessageTimestampDifferenceMaxMs = r.i64("log.message.timestamp.difference.max.ms")
	b.LogMessageDownconversionEnable = r.boolean("log.message.downconversion.enable")
	b.LogFlushIntervalMessages = r.i64("log.flush.interval.messages")
	b.LogFlushSchedulerIntervalMs = r.i64("log.flush.scheduler.interval.ms")
	b.LogFlushIntervalMs = b.LogFlushSchedulerIntervalMs
	if !r.isNull("log.flush.interval.ms") {
		b.LogFlushIntervalMs = r.i64("log.flush.interval.ms")
	}
	b.LogFlushOffsetCheckpointIntervalMs = r.i32("log.flush.offset.checkpoint.interval.ms")
	b.LogFlushStartOffsetCheckpointIntervalMs = r.i32("log.flush.start.offset.checkpoint.interval.ms")

	// log.retention.ms > .minutes > .hours; any negative result means
	// "forever" (-1), and zero is refused, as in KafkaConfig.
	retKey := "log.retention.hours"
	switch {
	case !r.isNull("log.retention.ms"):
		retKey = "log.retention.ms"
		b.LogRetentionMs = r.i64(retKey)
	case !r.isNull("log.retention.minutes"):
		retKey = "log.retention.minutes"
		b.LogRetentionMs = r.i64(retKey) * msPerMinute
	default:
		b.LogRetentionMs = r.i64(retKey) * msPerHour
	}
	if b.LogRetentionMs < 0 {
		b.LogRetentionMs = -1
	} else if b.LogRetentionMs == 0 {
		r.fail(retKey, r.str(retKey), fmt.Errorf("%w: retention must be -1 (unlimited) or at least 1 ms", ErrInvalidValue))
	}
	b.LogRetentionBytes = r.i64("log.retention.bytes")
	b.LogRetentionCheckIntervalMs = r.i64("log.retention.check.interval.ms")
	b.LogSegmentDeleteDelayMs = r.i64("log.segment.delete.delay.ms")
	b.LogCleanupPolicy = r.list("log.cleanup.policy")

	b.LogCleanerEnable = r.boolean("log.cleaner.enable")
	b.LogCleanerThreads = r.i32("log.cleaner.threads")
	b.LogOpenFilesMax = r.i32("log.open.files.max")
	b.LogCleanerIoMaxBytesPerSecond = r.f64("log.cleaner.io.max.bytes.per.second")
	b.LogCleanerDedupeBufferSize = r.i64("log.cleaner.dedupe.buffer.size")
	b.LogCleanerIoBufferSize = r.i32("log.cleaner.io.buffer.size")
	b.LogCleanerIoBufferLoadFactor = r.f64("log.cleaner.io.buffer.load.factor")
	b.LogCleanerBackoffMs = r.i64("log.cleaner.backoff.ms")
	b.LogCleanerMinCleanableRatio = r.f64("log.cleaner.min.cleanable.ratio")
	b.LogCleanerDeleteRetentionMs = r.i64("log.cleaner.delete.retention.ms")
	b.LogCleanerMinCompactionLagMs = r.i64("log.cleaner.min.compaction.lag.ms")
	b.LogCleanerMaxCompactionLagMs = r.i64("log.cleaner.max.compaction.lag.ms")
}

// msOrHours resolves a setting given either in ms (nullable, wins) or in
// hours.
func (r *resolver) msOrHours(msKey, hoursKey string) int64 {
	if !r.isNull(msKey) {
		return r.i64(msKey)
	}
	return r.i64(hoursKey) * msPerHour
}

// crossChecks applies the rules that relate several keys: Kafka's
// KafkaConfig.validateValues, plus a few kafgo adds where Kafka would accept
// a value and then fail at runtime.
func (r *resolver) crossChecks(b *Broker) {
	id := strconv.Itoa(int(b.BrokerID))
	if b.BrokerIDGenerationEnable {
		if b.BrokerID > b.ReservedBrokerMaxID {
			r.fail("broker.id", id, fmt.Errorf("%w: must be -1 or at most reserved.broker.max.id (%d)", ErrInvalidValue, b.ReservedBrokerMaxID))
		}
	} else if b.BrokerID < 0 {
		r.fail("broker.id", id, fmt.Errorf("%w: must be at least 0 when broker.id.generation.enable is false", ErrInvalidValue))
	}
	if b.BrokerID == -1 && b.Embedded() {
		// The embedded store serves exactly one broker: there is no cluster
		// to draw a sequence from, so the lone broker is 0 (Kafka's sample
		// server.properties id).
		b.BrokerID = 0
	}

	if b.ReplicaFetchWaitMaxMs > b.ReplicaSocketTimeoutMs {
		r.fail("replica.fetch.wait.max.ms", strconv.Itoa(int(b.ReplicaFetchWaitMaxMs)),
			fmt.Errorf("%w: must not exceed replica.socket.timeout.ms (%d), or fetches time out needlessly", ErrInvalidValue, b.ReplicaSocketTimeoutMs))
	}
	if int64(b.ReplicaFetchWaitMaxMs) > b.ReplicaLagTimeMaxMs {
		r.fail("replica.fetch.wait.max.ms", strconv.Itoa(int(b.ReplicaFetchWaitMaxMs)),
			fmt.Errorf("%w: must not exceed replica.lag.time.max.ms (%d), or followers drop in and out of the ISR", ErrInvalidValue, b.ReplicaLagTimeMaxMs))
	}
	if b.OffsetsCommitRequiredAcks < -1 || b.OffsetsCommitRequiredAcks > b.OffsetsTopicReplicationFactor {
		r.fail("offsets.commit.required.acks", strconv.Itoa(int(b.OffsetsCommitRequiredAcks)),
			fmt.Errorf("%w: must be between -1 and offsets.topic.replication.factor (%d)", ErrInvalidValue, b.OffsetsTopicReplicationFactor))
	}
	if b.LogCleanerThreads > 0 && b.LogCleanerDedupeBufferSize/int64(b.LogCleanerThreads) <= 1024*1024 {
		r.fail("log.cleaner.dedupe.buffer.size", strconv.FormatInt(b.LogCleanerDedupeBufferSize, 10),
			fmt.Errorf("%w: must be more than 1 MiB per cleaner thread (log.cleaner.threads=%d)", ErrInvalidValue, b.LogCleanerThreads))
	}
	if b.QueuedMaxRequestBytes > 0 && b.QueuedMaxRequestBytes < int64(b.SocketRequestMaxBytes) {
		r.fail("queued.max.request.bytes", strconv.FormatInt(b.QueuedMaxRequestBytes, 10),
			fmt.Errorf("%w: must be -1 or at least socket.request.max.bytes (%d)", ErrInvalidValue, b.SocketRequestMaxBytes))
	}
	if b.MaxConnectionsPerIP == 0 && len(b.MaxConnectionsPerIPOverrides) == 0 {
		r.fail("max.connections.per.ip", "0", fmt.Errorf("%w: may be 0 only when max.connections.per.ip.overrides is set", ErrInvalidValue))
	}
	if b.GroupMinSessionTimeoutMs > b.GroupMaxSessionTimeoutMs {
		r.fail("group.min.session.timeout.ms", strconv.Itoa(int(b.GroupMinSessionTimeoutMs)),
			fmt.Errorf("%w: must not exceed group.max.session.timeout.ms (%d), or no consumer could join", ErrInvalidValue, b.GroupMaxSessionTimeoutMs))
	}
	if b.LogCleanerMinCompactionLagMs > b.LogCleanerMaxCompactionLagMs {
		r.fail("log.cleaner.min.compaction.lag.ms", strconv.FormatInt(b.LogCleanerMinCompactionLagMs, 10),
			fmt.Errorf("%w: must not exceed log.cleaner.max.compaction.lag.ms (%d)", ErrInvalidValue, b.LogCleanerMaxCompactionLagMs))
	}
}
