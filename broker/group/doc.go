// Package group is the group coordinator: Kafka's classic consumer-group
// protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and committed
// offsets, persisted in the internal topic __consumer_offsets in Kafka's
// record formats (package offsetsrec documents the bytes).
//
// # Placement
//
// A group lives on __consumer_offsets partition
// abs(javaHashCode(group)) % partitions (Kafka's Utils.abs: MinInt32 maps
// to 0); the leader of that partition is its coordinator. When this broker
// becomes leader of a partition the replica manager calls
// OnLeadershipChange, and the partition is replayed from its log start to
// its log end offset: the last record of each key wins, tombstones delete.
// Until then requests for its groups get COORDINATOR_LOAD_IN_PROGRESS;
// requests for groups of partitions this broker does not lead get
// NOT_COORDINATOR. When leadership moves away the groups die and their
// waiting members are answered NOT_COORDINATOR. A group whose metadata
// record has members loads as Stable (each member gets one session timeout
// to heartbeat), one without as Empty.
//
// # States (Kafka's GroupMetadata; valid previous states in brackets)
//
//	Empty               [PreparingRebalance]   no members; may hold offsets
//	PreparingRebalance  [Stable, CompletingRebalance, Empty]
//	                    collecting JoinGroups
//	CompletingRebalance [PreparingRebalance]   JoinGroups answered, waiting
//	                    for the leader's SyncGroup
//	Stable              [CompletingRebalance]  assignment written and sent
//	Dead                [any]                  unloaded or deleted
//
// A rebalance starts when a member joins, leaves, changes its protocols,
// misses its session timeout, or the leader rejoins while Stable. The join
// phase ends when every known member has rejoined (and no KIP-394 pending
// member is outstanding) or when the largest rebalance timeout of the
// members passes; dynamic members that did not rejoin are removed, static
// ones keep their place until their session expires. From Empty the phase
// always waits group.initial.rebalance.delay.ms, again while members keep
// arriving, never beyond the rebalance timeout in all. Then the generation
// increments, the protocol is chosen by vote among those every member
// supports, and every waiting JoinGroup is answered, the leader's with all
// members' metadata. Members that send no SyncGroup within the rebalance
// timeout are removed and the group rebalances again. The leader's
// SyncGroup writes the group metadata (with every assignment) to the log;
// once it is replicated all SyncGroups are answered and the group is
// Stable. A group that ends a join phase with no members becomes Empty and
// is written with no members.
//
// Protocol metadata and assignments are opaque bytes passed through, so
// every client-side assignor works; a cooperative rebalance is just more
// join rounds. Only for protocol type "consumer" are subscriptions decoded,
// to know the subscribed topics (OffsetDelete, expiry).
//
// # Waiting without blocking
//
// JoinGroup and SyncGroup answers are delivered on buffered channels held
// by the member, answered exactly once by whoever completes the phase (the
// last join, a timer, an unload). The API layer reads them in a deferred
// reply, so a waiting request holds no lock and blocks nothing but its own
// connection; if the client disconnected, nobody reads and nothing leaks.
// Every wait is bounded: joins by the rebalance timeout (new members by
// NewMemberJoinTimeout), syncs by the pending-sync timeout, writes by
// offsets.commit.timeout.ms.
//
// # Writes
//
// Every write goes through the partition leader's append path with
// offsets.commit.required.acks (-1: all in-sync replicas) and is waited
// for off the group lock. Offset commits update the in-memory offsets only
// once replicated; commits of one partition racing each other are ordered
// by the log offset of their records, which is also what a replay sees.
// Expiry (every offsets.retention.check.interval.ms) removes offsets older
// than offsets.retention.minutes, counted from when an Empty group became
// Empty (KIP-211, persisted as current_state_timestamp), and deletes Empty
// groups left with no offsets; both write tombstones.
//
// # Transactional offsets (KIP-98, KIP-447)
//
// TxnOffsetCommit writes offset records as the producer's transactional
// batch (its producer id and epoch, base sequence 0, as Kafka writes it;
// the partition checks coordinator writes by epoch only). They stay pending per producer id, invisible to OffsetFetch
// (a require_stable fetch gets UNSTABLE_OFFSET_COMMIT for them), until the
// transaction coordinator's marker lands on the group's partition:
// OnTxnMarker with COMMIT makes them the committed offsets unless a later
// record already committed the partition, ABORT drops them. A load does
// the same from the log: records of a transactional batch wait for their
// producer's control batch. v3 requests are checked like a member's
// commit (generation, member id, static instance).
//
// # Locking
//
// Each group has its own mutex; the coordinator's mutex guards only the
// partition-to-groups maps. A group lock may be held while taking the
// coordinator lock, never the reverse. Timer callbacks check a sequence
// number under the group lock, so a stale callback does nothing.
package group
