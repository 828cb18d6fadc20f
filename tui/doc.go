// Package tui is kafgo's live cluster view (kafgo tui): brokers and the
// controller, topics, the partitions of one topic with every replica's log
// end offset, consumer groups with their lag, and open transactions.
//
// The package is client side only. A Source produces a Snapshot of the
// cluster; the live source asks the brokers over the Kafka protocol
// (Metadata, ListOffsets as a consumer for the high watermark and with the
// debug replica id -2 for the leader's log end offset, ListGroups,
// DescribeGroups, OffsetFetch; ListTransactions and DescribeTransactions
// of the open ones when ApiVersions says a broker serves them, KIP-664,
// Kafka 3.0 and later, the transactions tab being hidden otherwise) and,
// when given, each broker's admin HTTP endpoint (GET /v1/broker, GET
// /v1/partitions) for the leader's view of every follower's log end offset
// and the controller epoch, and GET /v1/quotas for the clients each broker
// throttled recently (client quotas), which the brokers view lists under
// the selected broker.
//
// The bubbletea Model renders a Snapshot and nothing else: View() depends
// only on the snapshot, the selection state and the window size, so a frame
// is reproducible in tests (golden files under testdata, -update rewrites
// them) and in scripts (kafgo tui --once).
//
// Unknown numbers are -1 in a Snapshot and render as "-".
package tui
