// Package broker wires one kafgo broker together and runs its lifecycle:
// the metadata store (ZooKeeper, or the embedded store when
// zookeeper.connect is unset), the log manager, the replica manager, the
// controller, the Kafka protocol listeners and the admin HTTP endpoint.
//
// Start order: metadata store → cluster id → logs (recovery) → replica
// manager and controller → listeners → registration in /brokers/ids, so a
// broker is only announced once it can answer. Shutdown runs the reverse,
// beginning with a controlled shutdown that moves leaderships away, and
// ends with a clean-shutdown marker so the next start skips log recovery.
package broker
