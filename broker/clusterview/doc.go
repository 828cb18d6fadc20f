// Package clusterview holds a broker's view of the cluster as the controller last
// described it in UpdateMetadata requests: the live brokers with their
// listener endpoints, the controller id, and every partition's leader, leader
// epoch, replicas, ISR and offline replicas.
//
// The view is immutable once published: each update builds a new View and
// swaps a pointer, so Metadata requests (the hottest reader) never take a lock
// and always see one consistent controller update.
//
// Semantics follow Kafka's ZooKeeper-era MetadataCache: the live broker list in
// every UpdateMetadata replaces the previous one, partition states are applied
// incrementally, and a partition whose leader is -2 (LeaderDuringDelete) is
// removed, the topic going with its last partition.
package clusterview
