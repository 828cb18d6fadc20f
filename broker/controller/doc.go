// Package controller is the cluster controller of Kafka's ZooKeeper era, on
// the meta.Store interface (a real ZooKeeper, or the embedded store for a
// single broker: the same code either way).
//
// Election: every broker tries to create the ephemeral /controller znode in
// one Multi with the increment of /controller_epoch; the winner is the
// controller for that epoch, the others watch /controller and race again
// when it goes. A session loss, or finding /controller held by another,
// resigns.
//
// Fencing: every state write is a Multi that first checks /controller_epoch's
// znode version, so a controller that lost its seat cannot write; partition
// state writes also check the state znode's version (the "zkVersion" or
// partition epoch). Brokers drop requests from an older controller epoch.
//
// All work happens on one event goroutine (watch firings, broker requests
// such as AlterPartition and ControlledShutdown, timers), so the in-memory
// view of the cluster needs no locks and every decision sees one state.
// Requests to brokers go out per broker, in order, through Sender.
//
// Leader election rules (Kafka's PartitionLeaderElectionAlgorithms):
//   - offline partition: the first replica in assignment order that is live
//     and in the ISR; if none and unclean.leader.election.enable, the first
//     live replica (the ISR becomes just that replica); else no leader.
//   - controlled shutdown: as offline, excluding brokers shutting down.
//   - preferred: the first assigned replica, if live and in the ISR.
//   - every controller-made change bumps the leader epoch; ISR changes
//     proposed by leaders (AlterPartition) bump only the partition epoch.
package controller
