package meta

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Sentinel errors, matched with errors.Is. Every error a Store returns wraps
// one of these (or a context error) behind a "meta: <op> <path>:" prefix.
var (
	// ErrNoNode: the znode (or, for Create, its parent) does not exist.
	ErrNoNode = kafkaerr.Sentinel(kerr.UnknownServerError, "node does not exist")
	// ErrNodeExists: Create of a path that exists.
	ErrNodeExists = kafkaerr.Sentinel(kerr.UnknownServerError, "node already exists")
	// ErrBadVersion: the znode's version differs from the expected one.
	ErrBadVersion = kafkaerr.Sentinel(kerr.UnknownServerError, "version conflict")
	// ErrNotEmpty: Delete of a znode that has children.
	ErrNotEmpty = kafkaerr.Sentinel(kerr.UnknownServerError, "node has children")
	// ErrNoChildrenForEphemerals: Create under an ephemeral znode.
	ErrNoChildrenForEphemerals = kafkaerr.Sentinel(kerr.UnknownServerError, "ephemeral nodes may not have children")
	// ErrSessionExpired: the session ended while the call was in flight; the
	// store is already establishing a new one.
	ErrSessionExpired = kafkaerr.Sentinel(kerr.RequestTimedOut, "session expired")
	// ErrConnectionLoss: the server could not be reached. For writes the
	// outcome is unknown, exactly as with ZooKeeper's CONNECTIONLOSS.
	ErrConnectionLoss = kafkaerr.Sentinel(kerr.RequestTimedOut, "connection loss")
	// ErrClosed: the store was closed.
	ErrClosed = kafkaerr.Sentinel(kerr.RequestTimedOut, "store closed")
	// ErrInvalidPath: not an absolute, normalized znode path (or an op that
	// is impossible on that path, like deleting the root).
	ErrInvalidPath = kafkaerr.Sentinel(kerr.UnknownServerError, "invalid path")
	// ErrRolledBack marks the ops of a failed Multi that did not fail
	// themselves but were undone (ZooKeeper's RUNTIMEINCONSISTENCY result).
	ErrRolledBack = kafkaerr.Sentinel(kerr.UnknownServerError, "rolled back: another op of the multi failed")
	// ErrCorrupt: the embedded store's file failed its integrity checks.
	ErrCorrupt = kafkaerr.Sentinel(kerr.UnknownServerError, "embedded store file is corrupt")
)
