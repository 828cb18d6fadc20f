// Package rebalance is `kafgo rebalance`: a load-aware partition
// rebalancer in the manner of Cruise Control, planning with its goals and
// executing with Kafka's own reassignment machinery.
//
// The model (Load): brokers and racks, every partition's replicas and
// leader (Metadata), each replica's size and log directory and each
// volume's size (DescribeLogDirs), and each partition's traffic, measured
// over a window from the brokers' per-topic byte counters (their admin
// endpoints' /v1/metrics, found through each broker's admin.listener) and
// shared out among a broker's partitions of a topic by their log end
// offsets' growth.
//
// The goals (Goals), in priority order, each a hard goal (must be met) or
// a soft one (met as far as possible), as Cruise Control defines them:
//
//	RackAwareGoal                         hard  a partition's replicas on as many racks as it can
//	ReplicaCapacityGoal                   hard  at most max.replicas.per.broker (10000) per broker; none on a removed one
//	DiskCapacityGoal                      hard  at most disk.capacity.threshold (0.8) of each broker's volumes
//	ReplicaDistributionGoal               soft  replicas per broker within one of the mean (floor..ceil)
//	DiskUsageDistributionGoal             soft  bytes per broker within mean * (1 ± 0.09)
//	NetworkInboundUsageDistributionGoal   soft  bytes in per second within mean * (1 ± 0.09)
//	NetworkOutboundUsageDistributionGoal  soft  bytes out per second within mean * (1 ± 0.09)
//	LeaderReplicaDistributionGoal         soft  preferred leaders per broker within one of the mean
//	PreferredLeaderElectionGoal           soft  every partition led by its first replica (by election)
//
// (0.09 is Cruise Control's balance margin: (balance threshold 1.10 - 1) *
// 0.9.) The planner optimizes the goals in turn; an action is taken only
// if it brings the goal nearer and leaves every earlier goal no further.
// Replica moves replace a broker by another in the same position of the
// replica list, so a moved preferred leader keeps the preference. For the
// count goals it takes the smallest partition that helps first, so the
// data moved stays near the least possible, which the plan reports as a
// lower bound; for the resource goals it takes the move that helps most,
// then swaps that keep the counts. Leadership is balanced by reordering
// replicas (no data moves).
//
// --add-broker (Cruise Control's add_broker): replicas move only onto the
// added brokers, only from the others. --remove-broker (remove_broker):
// replicas move only off the removed brokers, and all of them must.
//
// Execution (Execute): the changed partitions in batches of --concurrency,
// largest moves first, each batch started as kafka-reassign-partitions
// --execute --throttle starts it (the throttle configs set on the moving
// topics and the brokers involved) and waited for until the controller
// reports it done and the metadata shows the planned replicas; then
// --verify, which removes the throttles; then a preferred leader election;
// then a check that every partition holds its planned replicas and that no
// throttle config is left.
//
// What kafgo does not do: CPU goals (kafgo does not measure CPU per
// partition), the potential-network-out and topic-replica goals, and moves
// between log directories of one broker (kafgo's brokers do not serve
// AlterReplicaLogDirs): per-directory usage is shown, and a moved replica
// lands in the directory its new broker chooses.
package rebalance
