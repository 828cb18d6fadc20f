package meta

import (
	"context"
	"fmt"
)

// CreateMode is how Create makes a znode, as ZooKeeper's CreateMode.
type CreateMode int

// The create modes Kafka 2.x uses. Their values are ZooKeeper's wire flags.
const (
	Persistent           CreateMode = 0
	Ephemeral            CreateMode = 1
	PersistentSequential CreateMode = 2
	EphemeralSequential  CreateMode = 3
)

// IsEphemeral reports whether the znode dies with the session that made it.
func (m CreateMode) IsEphemeral() bool { return m == Ephemeral || m == EphemeralSequential }

// IsSequential reports whether the server appends a %010d suffix.
func (m CreateMode) IsSequential() bool {
	return m == PersistentSequential || m == EphemeralSequential
}

func (m CreateMode) valid() bool { return m >= Persistent && m <= EphemeralSequential }

func (m CreateMode) String() string {
	switch m {
	case Persistent:
		return "PERSISTENT"
	case Ephemeral:
		return "EPHEMERAL"
	case PersistentSequential:
		return "PERSISTENT_SEQUENTIAL"
	case EphemeralSequential:
		return "EPHEMERAL_SEQUENTIAL"
	}
	return fmt.Sprintf("CreateMode(%d)", int(m))
}

// Stat is a znode's metadata, field for field ZooKeeper's Stat. kafgo gives
// every znode the open ACL and never changes it, so Aversion stays 0 for
// its own znodes (and always in the embedded store); a ZooKeeper znode
// whose ACL someone else changed reports its real count (zookeeper-shell
// prints it).
type Stat struct {
	Czxid          int64 // zxid of the change that created the znode
	Mzxid          int64 // zxid of the last data change
	Pzxid          int64 // zxid of the last change to the children
	Ctime          int64 // creation time, ms since the epoch
	Mtime          int64 // last data change time, ms since the epoch
	Version        int32 // number of data changes; the "zkVersion" Kafka fences with
	Cversion       int32 // number of child creations and deletions
	EphemeralOwner int64 // owning session id, 0 for persistent znodes
	DataLength     int32
	NumChildren    int32
	Aversion       int32 // number of ACL changes
}

// EventType says what a watch saw.
type EventType int

// Watch event types. The first four are ZooKeeper's; EventNotWatching is
// delivered when the watch can no longer fire because its session expired or
// the store was closed (Event.Err says which), so a waiter never hangs.
const (
	EventNodeCreated         EventType = 1
	EventNodeDeleted         EventType = 2
	EventNodeDataChanged     EventType = 3
	EventNodeChildrenChanged EventType = 4
	EventNotWatching         EventType = -2
)

func (t EventType) String() string {
	switch t {
	case EventNodeCreated:
		return "NodeCreated"
	case EventNodeDeleted:
		return "NodeDeleted"
	case EventNodeDataChanged:
		return "NodeDataChanged"
	case EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	case EventNotWatching:
		return "NotWatching"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one watch notification. Path is the watched path as the caller
// passed it (relative to any chroot). Err is set only for EventNotWatching:
// ErrSessionExpired or ErrClosed.
type Event struct {
	Type EventType
	Path string
	Err  error
}

// SessionState is a change in the store's session.
type SessionState int

// Session states. After SessionExpired the store establishes a NEW session on
// its own and reports SessionConnected again; SessionID then returns the new
// id, every ephemeral znode of the old session is gone and every watch of the
// old session has fired EventNotWatching. That is the cue for a broker to
// re-register /brokers/ids/<id> and for a controller to resign and re-elect.
const (
	SessionConnected    SessionState = 1
	SessionDisconnected SessionState = 2
	SessionExpired      SessionState = 3
)

func (s SessionState) String() string {
	switch s {
	case SessionConnected:
		return "Connected"
	case SessionDisconnected:
		return "Disconnected"
	case SessionExpired:
		return "Expired"
	}
	return fmt.Sprintf("SessionState(%d)", int(s))
}

// Op is one operation of a Multi: CreateOp, SetOp, DeleteOp or CheckOp
// (values or pointers). The interface is sealed so a wrong type is a compile
// error rather than a runtime failure halfway through a controller write.
type Op interface {
	opPath() string
}

// CreateOp creates a znode, as Store.Create.
type CreateOp struct {
	Path string
	Data []byte
	Mode CreateMode
}

// SetOp replaces a znode's data if its version matches (-1 matches any).
type SetOp struct {
	Path    string
	Data    []byte
	Version int32
}

// DeleteOp deletes a childless znode if its version matches (-1 any).
type DeleteOp struct {
	Path    string
	Version int32
}

// CheckOp fails the whole Multi unless the znode exists with this version
// (-1 any). Kafka fences every controller write with a CheckOp on
// /controller_epoch's version.
type CheckOp struct {
	Path    string
	Version int32
}

func (o CreateOp) opPath() string { return o.Path }
func (o SetOp) opPath() string    { return o.Path }
func (o DeleteOp) opPath() string { return o.Path }
func (o CheckOp) opPath() string  { return o.Path }

// OpResult is the outcome of one Multi op. Path is the op's path, or for a
// CreateOp the created path (with the sequential suffix). Stat is set for
// SetOp only: ZooKeeper's multi returns no Stat for the other op kinds. When
// the Multi fails, the failing op's Err is the reason and every other op's
// Err is ErrRolledBack.
type OpResult struct {
	Path string
	Stat Stat
	Err  error
}

// Store is a ZooKeeper-semantics metadata store: the one interface the
// controller and brokers use whether the data lives in a real ZooKeeper
// ensemble or in the embedded single-broker store. See the package doc for
// the semantics both implementations share.
type Store interface {
	// Create makes a znode and returns its path, which for a sequential mode
	// is path plus a 10-digit suffix. The parent must exist and not be
	// ephemeral.
	Create(ctx context.Context, path string, data []byte, mode CreateMode) (string, error)
	Get(ctx context.Context, path string) ([]byte, Stat, error)
	// GetW is Get plus a one-shot watch on the znode's data: the channel
	// delivers exactly one Event (NodeDataChanged or NodeDeleted, or
	// NotWatching) and is then closed.
	GetW(ctx context.Context, path string) ([]byte, Stat, <-chan Event, error)
	// Exists reports whether the znode exists; a missing znode is not an error.
	Exists(ctx context.Context, path string) (bool, Stat, error)
	// ExistsW is Exists plus a one-shot watch that fires NodeCreated if the
	// znode was missing, or NodeDataChanged / NodeDeleted if it existed.
	ExistsW(ctx context.Context, path string) (bool, Stat, <-chan Event, error)
	// Set replaces the data if the znode's version equals version (-1 = any)
	// and returns the new Stat.
	Set(ctx context.Context, path string, data []byte, version int32) (Stat, error)
	// Delete removes a childless znode if its version matches (-1 = any).
	Delete(ctx context.Context, path string, version int32) error
	// Children lists the child names (not paths), sorted.
	Children(ctx context.Context, path string) ([]string, Stat, error)
	// ChildrenW is Children plus a one-shot watch that fires
	// NodeChildrenChanged when a child is created or deleted, or NodeDeleted
	// when the znode itself is deleted.
	ChildrenW(ctx context.Context, path string) ([]string, Stat, <-chan Event, error)
	// Multi applies all ops atomically or none of them. On failure the
	// returned error wraps the failing op's sentinel error and the results
	// say which op failed.
	Multi(ctx context.Context, ops ...Op) ([]OpResult, error)
	// SessionID is the current session's id; it changes after an expiry.
	SessionID() int64
	// Sessions returns a new subscription to session state changes that
	// happen after the call. Every subscriber sees every change, in order;
	// the channel is closed when the store is closed.
	Sessions() <-chan SessionState
	// Close ends the session (its ephemeral znodes are deleted, its watches
	// fire NotWatching with ErrClosed) and releases resources. Later calls
	// return ErrClosed.
	Close() error
}

// SessionExpirer is implemented by both stores: it forcibly expires the
// store's current session, exactly as if the server had timed it out, and
// lets the store establish a new one. Tests use it to rehearse broker
// re-registration and controller resignation; for ZooKeeper it is the
// technique of closing the session from a second connection that presents
// the same session id and password.
type SessionExpirer interface {
	ExpireSession(ctx context.Context) error
}

// Both implementations satisfy the full interface set.
var (
	_ Store          = (*zkStore)(nil)
	_ SessionExpirer = (*zkStore)(nil)
	_ Store          = (*Embedded)(nil)
	_ SessionExpirer = (*Embedded)(nil)
)
