// Package broker wires one kafgo broker together and runs its lifecycle:
// the metadata store (ZooKeeper, or the embedded store when
// zookeeper.connect is unset), the log manager, the replica manager, the
// controller, the Kafka protocol listeners and the admin HTTP endpoint.
//
// Start order: bind the listeners and the admin endpoint (a port in use
// fails at once, before anything else is touched) → metadata store →
// cluster id → logs (recovery) → replica manager and controller → serve the
// listeners → registration in /brokers/ids, so a broker is only announced
// once it can answer. Every step that can wait (store connection, log
// recovery, a previous registration's expiry) ends with Start's context.
// Shutdown runs the reverse, beginning with a controlled shutdown that moves
// leaderships away (only if the broker registered), and ends with a
// clean-shutdown marker so the next start skips log recovery.
package broker
