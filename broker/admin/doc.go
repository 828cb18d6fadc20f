// Package admin serves the broker's HTTP endpoint (admin.listener): Prometheus
// metrics at /metrics and a read-only JSON view at /v1 of what the Kafka
// protocol does not expose — each replica's log end offset as the leader
// sees it, high watermarks, the ISR, and the controller — for the TUI and
// for operators' scripts.
//
// Besides network, partition and controller figures, /metrics carries the
// replication quotas (KIP-73) per side="leader"|"follower":
// kafgo_replication_throttled_bytes_total, kafgo_replication_throttled_byte_rate,
// kafgo_replication_throttle_limit_bytes, kafgo_replication_throttling (1 while
// the quota is exceeded) and kafgo_replication_throttle_held_back_total.
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
package admin
