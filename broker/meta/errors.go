package meta

import "errors"

// Sentinel errors, matched with errors.Is. Every error a Store returns wraps
// one of these (or a context error) behind a "meta: <op> <path>:" prefix.
var (
	// ErrNoNode: the znode (or, for Create, its parent) does not exist.
	ErrNoNode = errors.New("node does not exist")
	// ErrNodeExists: Create of a path that exists.
	ErrNodeExists = errors.New("node already exists")
	// ErrBadVersion: the znode's version differs from the expected one.
	ErrBadVersion = errors.New("version conflict")
	// ErrNotEmpty: Delete of a znode that has children.
	ErrNotEmpty = errors.New("node has children")
	// ErrNoChildrenForEphemerals: Create under an ephemeral znode.
	ErrNoChildrenForEphemerals = errors.New("ephemeral nodes may not have children")
	// ErrSessionExpired: the session ended while the call was in flight; the
	// store is already establishing a new one.
	ErrSessionExpired = errors.New("session expired")
	// ErrConnectionLoss: the server could not be reached. For writes the
	// outcome is unknown, exactly as with ZooKeeper's CONNECTIONLOSS.
	ErrConnectionLoss = errors.New("connection loss")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store closed")
	// ErrInvalidPath: not an absolute, normalized znode path (or an op that
	// is impossible on that path, like deleting the root).
	ErrInvalidPath = errors.New("invalid path")
	// ErrRolledBack marks the ops of a failed Multi that did not fail
	// themselves but were undone (ZooKeeper's RUNTIMEINCONSISTENCY result).
	ErrRolledBack = errors.New("rolled back: another op of the multi failed")
	// ErrCorrupt: the embedded store's file failed its integrity checks.
	ErrCorrupt = errors.New("embedded store file is corrupt")
)
