// Package meta is kafgo's metadata store: one interface, Store, with
// ZooKeeper's semantics, and two implementations, so the controller and the
// brokers have a single code path:
//
//   - DialZooKeeper: a real ZooKeeper ensemble (Kafka 2.x's
//     zookeeper.connect, with chroot), through github.com/go-zookeeper/zk.
//   - OpenEmbedded: an in-process tree persisted in one file under
//     log.dirs, the zero-set-up default for a single broker.
//
// The znode layout Kafka 2.x keeps in the store, and its JSON, is in the
// subpackage znode; Kafka's ids (cluster id, topic ids) are in uuid.
//
// # Semantics shared by both stores
//
// Paths are absolute, "/"-separated, without a trailing slash or empty,
// "." or ".." components (ErrInvalidPath otherwise). The root "/" always
// exists and cannot be deleted.
//
// Create needs an existing, non-ephemeral parent (ErrNoNode,
// ErrNoChildrenForEphemerals) and a free path (ErrNodeExists). A sequential
// create appends the parent's count of children ever created, as %010d
// ("/isr_change_notification/isr_change_0000000007"); a sequential path may
// end in "/" to get a bare number. Ephemeral znodes belong to the session
// that made them (Stat.EphemeralOwner is its id) and are deleted when the
// session closes or expires; they cannot have children.
//
// Stat is ZooKeeper's: every change is one transaction with one zxid (a
// Multi is one transaction); Czxid/Mzxid/Pzxid are the zxids of the
// create, the last data change and the last child change; Version counts
// data changes, Cversion child creates plus deletes; Ctime/Mtime are ms.
// Set, Delete and CheckOp take an expected Version (-1 = any) and fail with
// ErrBadVersion on mismatch: this is how Kafka fences controller writes
// (controller epoch znode version) and ISR updates (partition state
// version, the "zkVersion").
//
// Watches are one-shot, as ZooKeeper's: the returned channel delivers
// exactly one Event and is then closed. Which calls arm which events:
//
//	GetW, ExistsW (znode exists)   NodeDataChanged on Set, NodeDeleted on Delete
//	ExistsW (znode missing)        NodeCreated on Create
//	ChildrenW                      NodeChildrenChanged on a child's Create or
//	                               Delete, NodeDeleted on the znode's Delete
//
// A child's data change fires nothing on its parent; a znode's data change
// fires no child watch. Each registration fires separately, also several on
// one session. A failed GetW or ChildrenW (ErrNoNode) arms nothing. When a
// session ends, its outstanding watches deliver EventNotWatching with Err
// ErrSessionExpired or ErrClosed, so no waiter hangs. Watch channels are
// independent of each other: do not infer an order between two watches.
//
// Multi applies CreateOp, SetOp, DeleteOp and CheckOp all-or-nothing; later
// ops see earlier ones' effects (create then set the same znode works). On
// failure nothing is applied and no watch fires; the error wraps the failing
// op's sentinel, that op's OpResult.Err holds it, and every other op's Err
// is ErrRolledBack.
//
// Sessions: Sessions() subscribes to SessionConnected / SessionDisconnected
// / SessionExpired. After SessionExpired the store opens a new session by
// itself (new SessionID) and reports SessionConnected; ephemerals of the old
// session are gone and must be re-created (a broker re-registers
// /brokers/ids/<id>; a controller resigns and re-runs the election).
// SessionExpirer forces an expiry, for tests and failure drills.
//
// Every call honours its context. A write whose context ends, or that fails
// with ErrConnectionLoss, has an unknown outcome; callers re-read, exactly as
// with ZooKeeper. Errors wrap the sentinels below behind "meta: <op> <path>:".
//
// # ZooKeeper store
//
// The chroot of zookeeper.connect is applied client-side and created if
// missing (as Kafka does); every path in calls, results and events is
// relative to it. All znodes get the open ACL (world:anyone, all perms).
// Children are sorted client-side. go-zookeeper's logging goes to slog at
// debug level. Its client reconnects by itself within the session timeout
// (watches are re-armed by the server), and after an expiry starts a new
// session; the store reports both. Unlike the embedded store, ZooKeeper's
// root holds its own /zookeeper subtree.
//
// # Embedded store
//
// One tree per file, served to one or more sessions (Embedded.NewSession)
// in the process; the file is locked (flock on <file>.lock) so a second
// store cannot open it. Persistent znodes are written durably before a call
// returns: the whole tree is rewritten to <file>.tmp, fsynced, renamed over
// the file, and the directory fsynced. The file is JSON with a CRC-32C over
// its state (format in embedded_file.go); a file that is empty, truncated,
// fails its checksum or is inconsistent is refused with ErrCorrupt, never
// loaded partially. Ephemeral znodes are never written: they vanish on
// Close and on restart. If a write cannot be made durable the change is
// undone and the store refuses further calls (fail-stop), because memory
// and disk might then disagree. Calls are serialized; the store is safe for
// concurrent use, and the zxid, session ids and sequence numbers only grow,
// also across restarts.
//
// # Change notifications
//
// ChangeListener follows a directory of sequential notifications
// (/config/changes, the ACL change directories) as Kafka's
// ZkNodeChangeNotificationListener does: each new one once, in sequence
// order, removing those older than NotificationExpiry.
package meta
