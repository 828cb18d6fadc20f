// Package replica owns the partitions hosted on this broker: for each, whether
// it leads or follows, its leader epoch, replica set and ISR, every follower's
// log end offset (LEO) as the leader last saw it, and the high watermark (HW).
//
// Invariants, after Kafka's Partition and ReplicaManager:
//   - The HW on a leader is the minimum LEO over the maximal ISR (the committed
//     ISR plus replicas whose addition is pending at the controller); it only
//     moves forward. Consumers read below the HW; followers read up to the LEO.
//   - A follower's LEO is learned from its Fetch offset: the follower has every
//     offset below it. A follower is caught up when it fetched at or beyond the
//     leader's LEO; it leaves the ISR when it has not been caught up for
//     replica.lag.time.max.ms, and rejoins once its LEO reaches the HW and the
//     start of the current leader epoch.
//   - ISR changes are proposed to the controller with AlterPartition; the leader
//     applies only what the controller accepted. Leader epochs change only with
//     LeaderAndIsr from the controller.
//   - The last stable offset (LSO) is the HW held back by the earliest
//     transaction still open or whose marker is not yet below the HW (kept
//     by the log's producer state on leaders and followers alike, so a new
//     leader has it). read_committed consumers read below it; it moves only
//     when the HW does, so HW wake-ups serve LSO waiters too. Transaction
//     markers (WriteTxnMarkers) are acks=all appends with the coordinator
//     origin.
//   - acks=all completes when the HW passes the batch; if the ISR is then
//     smaller than min.insync.replicas the answer is
//     NOT_ENOUGH_REPLICAS_AFTER_APPEND. With the ISR already too small the
//     append is refused with NOT_ENOUGH_REPLICAS.
//   - A replica that becomes a follower truncates where its latest epoch ends
//     on the leader (OffsetForLeaderEpoch, KIP-101/KIP-279) rather than at its
//     HW, so neither a follower that truncated to its HW and then became leader
//     nor an old leader returning with a divergent tail can lose acknowledged
//     data.
//   - Replication throttling (KIP-73): a leader answers a follower outside
//     the ISR with no records for a leader-throttled partition while the
//     leader quota is exceeded; a follower leaves its follower-throttled
//     replicas that are not in sync (the last answer's HW beyond its LEO)
//     out of its fetches while the follower quota is exceeded. In-sync
//     replicas are never held back; the bytes of throttled partitions are
//     counted on both sides either way (see package quota).
//   - Appends and leadership changes are serialised by the partition's
//     leadership lock (appends share it, changes take it exclusively), so no
//     batch is ever stamped with a stale leader epoch.
package replica
