// Package admin serves the broker's HTTP endpoint (admin.listener): Prometheus
// metrics at /metrics and a read-only JSON view at /v1 of what the Kafka
// protocol does not expose — each replica's log end offset as the leader
// sees it, high watermarks, the ISR, the controller, and the metrics — for
// the TUI and for operators' scripts. / lists the paths it serves.
//
// The incremental fetch session cache (KIP-227) shows as
// kafgo_fetch_sessions, kafgo_fetch_session_partitions,
// kafgo_fetch_session_evictions_total and kafgo_incremental_fetches_total.
//
// With admin.pprof.enable (off by default) it also serves Go's runtime
// profiles at /debug/pprof/ (net/http/pprof: profile, heap, allocs,
// goroutine, mutex, block, trace), for `go tool pprof` against a live
// broker.
//
//	GET /v1/broker      {"broker_id":1,"cluster_id":"…","controller_id":2,"is_controller":false,"controller_epoch":0}
//	GET /v1/partitions  [{"topic":"t","partition":0,"leader":1,"leader_epoch":3,"replicas":[1,2],"isr":[1,2],
//	                      "is_leader":true,"high_watermark":42,"log_start_offset":0,"log_end_offset":42,
//	                      "replica_log_end_offsets":{"1":42,"2":40}}, …]
//	GET /v1/quotas      client quota sensors (internal/adminapi.ClientQuota)
//	GET /v1/metrics     the figures below as JSON (internal/adminapi.Metrics):
//	                    counters since start, request latency percentiles,
//	                    ReplicaManager and controller gauges, group lag
//	GET /v1/consumer-health  the health of the groups this broker
//	                    coordinates (internal/adminapi.ConsumerHealth): per
//	                    group and partition Burrow's status, time lag, rates,
//	                    time to catch up, recent lags
//
// # Metric names
//
// /metrics carries Kafka's metric set (its JMX MBeans) under the names the
// Prometheus JMX exporter gives them with Strimzi's rules
// (examples/metrics/kafka-metrics.yaml in Strimzi, the jmx_exporter's
// kafka-2_0_0 example): lower-cased kafka_<domain>_<type>_<name>, a
// per-second meter's count as <name without PerSec>_total, a gauge's value
// under its name, the bean's keys as labels. So
// kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=t is
// kafka_server_brokertopicmetrics_messagesin_total{topic="t"}, and the
// all-topics bean is the same name without the topic label. Dashboards
// written for Strimzi-exported Kafka work unchanged, with these
// differences, each forced by what kafgo is:
//
//   - Timers and histograms (TotalTimeMs, LogFlushRateAndTimeMs, ...) are
//     Prometheus histograms in milliseconds (<name>_bucket{le}, _sum,
//     _count), not the exporter's quantile gauges: buckets aggregate across
//     brokers and any percentile is histogram_quantile(q, rate(..._bucket)).
//     The _count series is the exporter's. Buckets run 1-2-5 from 1 µs to
//     50 s.
//   - kafka.coordinator.group beans, which Strimzi's rules do not match,
//     follow the same scheme with the domain's dot as an underscore:
//     kafka_coordinator_group_groupmetadatamanager_numgroups.
//   - socket-server-metrics carry the listener label but no networkProcessor
//     (there are no processor threads).
//   - Consumer lag uses kafka_exporter's names (kafka_consumergroup_lag,
//     _current_offset, _lag_sum, _members), from the broker that
//     coordinates each group: sum over brokers never counts a group twice.
//   - kafgo's own series are named kafgo_*.
//
// # Families
//
// BrokerTopicMetrics (counters, per topic and total):
// kafka_server_brokertopicmetrics_{messagesin,bytesin,bytesout,bytesrejected,
// failedproducerequests,failedfetchrequests,totalproducerequests,
// totalfetchrequests}_total{topic}, and replicationbytesin/out_total (all
// topics only, as in Kafka). Counted as Kafka 2.8's ReplicaManager does:
// once per partition of a request (never per record), MessagesIn/BytesIn on
// a leader's successful append (producers' and coordinators'), BytesOut for
// consumer reads, ReplicationBytesOut for follower reads, ReplicationBytesIn
// on a follower's append. A produce partition failing as not leader,
// unknown, too large or corrupt is not a failed produce (too large and
// corrupt count their bytes as rejected); other failures (invalid records,
// NOT_ENOUGH_REPLICAS, producer fencing, internal topics) are. A fetch
// partition failing other than for leadership, epochs or offsets out of
// range is a failed fetch. A topic's series exist while a partition of it
// is hosted here; the total keeps what deleted topics counted.
//
// RequestMetrics (request = Kafka's name: Produce, FetchConsumer,
// FetchFollower, Metadata, OffsetCommit, ...; every fetch also counts under
// request="Fetch", as in Kafka):
// kafka_network_requestmetrics_requests_total{request,version},
// kafka_network_requestmetrics_errors_total{request,error} (one per error
// field of a response — per partition for produce and fetch — NONE
// included, error named as Kafka's Errors enum), and histograms
// kafka_network_requestmetrics_{totaltimems,requestqueuetimems,localtimems,
// remotetimems,responsequeuetimems,responsesendtimems,throttletimems}{request}.
// kafgo serves a connection's requests on its own goroutines, so the phases
// map onto Kafka's like this: RequestQueueTime is from the request read to
// its handler starting (no queue: near zero); LocalTime is the handler's
// own work (decode, validation, log append); ResponseQueueTime is waiting
// for the connection's earlier responses; RemoteTime is the deferred reply,
// Kafka's purgatory (acks=all replication, a fetch's read and long-poll, a
// JoinGroup waiting for the rebalance); ResponseSendTime is encoding and
// writing, sendfile included; ThrottleTime is the client quota throttle
// the response carried. Only requests that reached a handler and whose
// response was written (or, for acks=0, whose turn passed) are counted.
//
// Idle ratios (gauges, 0-1, over the last minute of scrapes):
// kafka_network_socketserver_networkprocessoravgidle_percent is the share of
// open connections' time their reader spent waiting for a next request
// (blocked on the socket with nothing of one read yet); time reading a
// request, serving it, or held back by the in-flight limit or a quota mute
// is busy. It falls towards 0 as clients keep every connection's reader
// busy, as Kafka's falls as processor threads saturate; idle connections
// weigh it towards 1. The cumulative figures are
// kafgo_network_reader_idle_seconds and kafgo_network_reader_seconds.
// kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent is 1
// minus the handlers' LocalTime per second over GOMAXPROCS: the share of
// the CPUs the Go scheduler may use that request handling left unused.
// Connections per listener:
// kafka_server_socket_server_metrics_{connection_count,connection_creation_total,
// connection_creation_rate,connection_close_total,connection_close_rate,
// failed_authentication_total}{listener} (failed authentication counts
// failed TLS handshakes and SASL exchanges). Connection limits:
// kafka_network_acceptor_acceptorblockedpercent_total{listener} (Kafka's
// Acceptor meter: nanoseconds accepting waited for a slot under
// max.connections) and kafgo_network_connections_rejected_total{listener,
// reason} (per_ip: closed at once by max.connections.per.ip;
// max_connections: closed to bring the broker back under max.connections).
//
// ReplicaManager: kafka_server_replicamanager_{partitioncount,leadercount,
// underreplicatedpartitions,underminisrpartitioncount,atminisrpartitioncount,
// offlinereplicacount} (gauges; offline replicas are always 0, kafgo does
// not take log directories offline) and {isrshrinks,isrexpands,
// failedisrupdates}_total (ISR changes of partitions led here, counted when
// the controller accepted them, or refused them).
//
// KafkaController (gauges, the active controller's; 0 on the others):
// kafka_controller_kafkacontroller_{activecontrollercount,
// offlinepartitionscount,globalpartitioncount,globaltopiccount,
// preferredreplicaimbalancecount,topicstodeletecount,replicastodeletecount},
// computed on the controller's event loop at scrape time. ControllerStats:
// kafka_controller_controllerstats_leaderelectionrateandtimems (histogram:
// each broker change the active controller handled, elections included, as
// Kafka times its BrokerChange event) and uncleanleaderelections_total.
//
// Log: kafka_log_log_{logendoffset,logstartoffset,size,numlogsegments}
// {topic,partition} for every local log, read at scrape time;
// kafka_log_logflushstats_logflushrateandtimems (histogram of flushes that
// synced data).
//
// Group coordinator: kafka_coordinator_group_groupmetadatamanager_{numgroups,
// numgroupspreparingrebalance,numgroupscompletingrebalance,numgroupsstable,
// numgroupsdead,numgroupsempty,numoffsets}; per group
// kafka_consumergroup_current_offset{consumergroup,topic,partition},
// kafka_consumergroup_lag (the partition's high watermark minus the committed
// offset, floored at 0; the HW is the local replica's where this broker
// leads, else asked of the leader with ListOffsets at scrape time; a
// partition whose leader does not answer has no lag series that scrape),
// kafka_consumergroup_lag_sum{consumergroup,topic} and
// kafka_consumergroup_members{consumergroup}. Consumer health (see
// internal/consumerhealth, sampled every consumer.health.sample.interval.ms,
// only for the groups this broker coordinates):
// kafka_consumergroup_lag_seconds{consumergroup,topic,partition} (now minus
// the timestamp of the next record to read; 0 caught up; left out while
// unknown), kafka_consumergroup_max_lag_seconds{consumergroup},
// kafka_consumergroup_status{consumergroup} and
// kafka_consumergroup_partition_status{consumergroup,topic,partition}
// (Burrow's numbers: 1 OK, 2 WARNING, 3 ERROR, 4 STOP, 5 STALL, 6 REWIND).
// Transaction coordinator:
// kafgo_txn_coordinator_partitions{state="loaded"|"loading"} and
// kafgo_txn_coordinator_transactions{state}.
//
// Client quotas, named as the JMX exporter names Kafka's
// kafka.server:type=Produce|Fetch|Request,user=..,client-id=.. beans:
// kafka_server_{produce,fetch}_byte_rate, kafka_server_request_request_time,
// kafka_server_{produce,fetch,request}_throttle_time{user,client_id}, and
// kafgo_client_quota_limit{type,user,client_id}.
//
// kafgo's own: kafgo_network_* (connections, requests, bytes), per partition
// kafgo_high_watermark, kafgo_partition_is_leader and kafgo_partition_isr_size,
// and the replication quotas (KIP-73) per side="leader"|"follower":
// kafgo_replication_throttled_bytes_total, kafgo_replication_throttled_byte_rate,
// kafgo_replication_throttle_limit_bytes, kafgo_replication_throttling (1 while
// the quota is exceeded) and kafgo_replication_throttle_held_back_total.
//
// # Cost
//
// Nothing here runs on the request path except the counters of package
// broker/metrics: per request, a handful of atomic adds into handles
// resolved ahead of time and three clock reads; per partition of a produce
// or fetch, two or three atomic adds. Everything else (gauges, logs,
// groups, lag, the controller's counts) is computed when scraped.
// examples/grafana/kafgo-dashboard.json is a dashboard over these series.
package admin
