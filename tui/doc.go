// Package tui is kafgo's terminal workbench (kafgo tui): a live view of a
// cluster and the actions an operator takes on it, for kafgo and for any
// Kafka 2.x cluster or later.
//
// # Data
//
// The package is client side only. A Source produces a Snapshot of the
// cluster; the live source asks the brokers over the Kafka protocol
// (Metadata; ListOffsets as a consumer for the high watermark and with the
// debug replica id -2 for the leader's log end offset; ListGroups,
// DescribeGroups, OffsetFetch; DescribeConfigs for every topic's
// min.insync.replicas; ListTransactions and DescribeTransactions when
// ApiVersions says a broker serves them, KIP-664, Kafka 3.0 and later;
// ListPartitionReassignments when it serves KIP-455, Kafka 2.4 and later,
// with the moving topics' throttled replicas, the brokers' throttle rates
// and DescribeLogDirs sizes) and, when given (--admin), each broker's admin
// HTTP endpoint: GET /v1/broker and /v1/partitions for the leader's view of
// every follower's log end offset and the controller epoch, /v1/quotas for
// the clients it throttled recently, and /metrics (Prometheus text) for its
// byte counters (counterNames: Kafka's BrokerTopicMetrics where a broker
// exports them, per topic, else kafgo's wire totals).
//
// Whatever else a view needs is an optional interface of the Source, found
// by type assertion, so a cluster or a test fake without it degrades to a
// note: Prober (ApiVersions to each broker on its own connection, every
// refresh, apart from the snapshot: a killed broker is unreachable at once,
// while Metadata lists it until its ZooKeeper session expires),
// ConfigSource (DescribeConfigs on demand), MessageSource (a direct
// consumer of one partition, no group, reads bounded to a page and every
// key and value cut to maxRecordBytes) and Actor (CreateTopics,
// DeleteTopics, CreatePartitions, IncrementalAlterConfigs, OffsetCommit of
// an empty group as kafka-consumer-groups --reset-offsets does, and
// ElectLeaders).
//
// # Rates
//
// Rates are deltas between snapshots (trends): records in per
// partition, topic, broker and cluster from high watermarks, which any
// Kafka serves; records consumed per topic and group from committed
// offsets, between the commits seen to change (a consumer commits less
// often than the view refreshes); bytes in and out from the admin endpoints' counters; and lag as
// sampled. Every series keeps trendLen samples, and only for what the
// latest snapshot holds.
//
// # Model
//
// The bubbletea Model is a root (tabs, pages opened over them with Enter
// and left with Esc, prompts, the help and warnings overlays, the refresh
// and probe loops) and one small model per view. A view's state is its
// selection, its filter and sort, and what it loaded itself; everything
// else comes from the snapshot, so View() depends only on the snapshots,
// the probe results, that state and the window size: a frame is
// reproducible in tests (golden files under testdata, -update rewrites
// them) and in scripts (kafgo tui --once). Frames hold exactly the window's
// lines; a list cut to fit says how many rows it left out, and tables leave
// out their droppable columns (rates, trends) before narrowing names, but
// keep a column that says what the header's alarm is about (NON-PREF in
// Topics, STATE in Partitions) before any throughput column. A
// number is never cut short (it would read as another number): a table
// leaves out a numeric column the width would cut, and a line cut at the
// edge loses the figure there whole, marked "…".
//
// Every action runs only after a y/n confirmation that says what it will
// change; Options.ReadOnly (--read-only) turns them all off.
//
// Unknown numbers are -1 in a Snapshot and render as "-".
package tui
