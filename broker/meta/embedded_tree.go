package meta

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// enode is one znode of the embedded tree.
type enode struct {
	data []byte
	// stat holds what ZooKeeper persists (StatPersisted). Its Cversion is
	// ZooKeeper's internal count of child creates, which names sequential
	// children; clients see creates*2 - children, i.e. creates plus deletes
	// (DataNode.copyStat). DataLength and NumChildren are derived.
	stat     Stat
	children map[string]struct{}
}

func (n *enode) statOut() Stat {
	s := n.stat
	s.DataLength = int32(len(n.data))
	s.NumChildren = int32(len(n.children))
	s.Cversion = n.stat.Cversion*2 - s.NumChildren
	return s
}

// tree is the state shared by every session of one embedded store file:
// the znodes, the zxid counter, the live sessions and their watches.
type tree struct {
	file   string
	logger *slog.Logger

	// sem is a one-slot semaphore rather than a sync.Mutex so that waiting
	// for it honours the caller's context.
	sem chan struct{}

	nodes    map[string]*enode
	zxid     int64
	sessions map[int64]*Embedded
	lastSID  int64
	dataW    map[string][]*ewatch // getData and exists watches, as ZooKeeper's dataWatches
	childW   map[string][]*ewatch // getChildren watches
	refs     int                  // open sessions; the file lock is held while > 0
	unlock   func() error
	// failed is set when a write could not be made durable. The store then
	// refuses everything (fail-stop): memory and disk might disagree, and
	// carrying on could hand out a version or sequence number twice.
	failed error
}

func newTree(file string, logger *slog.Logger) *tree {
	return &tree{
		file:     file,
		logger:   logger,
		sem:      make(chan struct{}, 1),
		nodes:    map[string]*enode{"/": {children: map[string]struct{}{}}},
		sessions: make(map[int64]*Embedded),
		dataW:    make(map[string][]*ewatch),
		childW:   make(map[string][]*ewatch),
	}
}

func (t *tree) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *tree) release() { <-t.sem }

// nextSessionID follows ZooKeeper's scheme, milliseconds shifted into the
// high bits, so ids are unique across restarts of the process without being
// stored; within a process they strictly increase.
func (t *tree) nextSessionID() int64 {
	id := int64(uint64(time.Now().UnixMilli()<<24) >> 8)
	if id <= t.lastSID {
		id = t.lastSID + 1
	}
	t.lastSID = id
	return id
}

// txn applies changes to the tree at once, keeping an undo log so that a
// failing op of a Multi, or a failed persist, restores the exact previous
// state. Watches fire only on commit, after the change is durable.
type txn struct {
	t       *tree
	sess    *Embedded
	zxid    int64
	now     int64
	undo    []func()
	fire    []firing
	changed bool
}

type firing struct {
	path  string
	typ   EventType
	child bool // fire the child-watch table instead of the data-watch table
}

func (t *tree) begin(sess *Embedded) *txn {
	return &txn{t: t, sess: sess, zxid: t.zxid + 1, now: time.Now().UnixMilli()}
}

// parentOf is the parent of a create's path. A sequential create may end in
// '/' ("/a/" creates "/a/0000000007"), whose parent is the path itself.
func parentOf(p string, sequential bool) string {
	if sequential && strings.HasSuffix(p, "/") {
		if p == "/" {
			return "/"
		}
		return p[:len(p)-1]
	}
	return ParentPath(p)
}

func (tx *txn) create(p string, data []byte, mode CreateMode) (string, error) {
	if err := checkCreate(p, mode); err != nil {
		return "", err
	}
	parentPath := parentOf(p, mode.IsSequential())
	parent := tx.t.nodes[parentPath]
	if parent == nil {
		return "", ErrNoNode
	}
	final := p
	if mode.IsSequential() {
		final = sequentialName(p, parent.stat.Cversion)
	}
	if _, ok := tx.t.nodes[final]; ok {
		return "", ErrNodeExists
	}
	if parent.stat.EphemeralOwner != 0 {
		return "", ErrNoChildrenForEphemerals
	}
	n := &enode{
		data:     clone(data),
		children: make(map[string]struct{}),
		stat:     Stat{Czxid: tx.zxid, Mzxid: tx.zxid, Pzxid: tx.zxid, Ctime: tx.now, Mtime: tx.now},
	}
	name := BaseName(final)
	prevParent := parent.stat
	tx.t.nodes[final] = n
	parent.children[name] = struct{}{}
	parent.stat.Cversion++
	parent.stat.Pzxid = tx.zxid
	sess := tx.sess
	if mode.IsEphemeral() {
		n.stat.EphemeralOwner = sess.id.Load()
		sess.ephemerals[final] = struct{}{}
	}
	tx.undo = append(tx.undo, func() {
		delete(tx.t.nodes, final)
		delete(parent.children, name)
		parent.stat = prevParent
		if mode.IsEphemeral() {
			delete(sess.ephemerals, final)
		}
	})
	tx.fire = append(tx.fire,
		firing{path: final, typ: EventNodeCreated},
		firing{path: parentPath, typ: EventNodeChildrenChanged, child: true})
	tx.changed = true
	return final, nil
}

func (tx *txn) set(p string, data []byte, version int32) (Stat, error) {
	if err := ValidatePath(p); err != nil {
		return Stat{}, err
	}
	n := tx.t.nodes[p]
	if n == nil {
		return Stat{}, ErrNoNode
	}
	if version != -1 && version != n.stat.Version {
		return Stat{}, ErrBadVersion
	}
	prevStat, prevData := n.stat, n.data
	n.data = clone(data)
	n.stat.Version++
	n.stat.Mzxid = tx.zxid
	n.stat.Mtime = tx.now
	tx.undo = append(tx.undo, func() { n.stat, n.data = prevStat, prevData })
	tx.fire = append(tx.fire, firing{path: p, typ: EventNodeDataChanged})
	tx.changed = true
	return n.statOut(), nil
}

func (tx *txn) delete(p string, version int32) error {
	if err := checkDelete(p); err != nil {
		return err
	}
	n := tx.t.nodes[p]
	if n == nil {
		return ErrNoNode
	}
	if version != -1 && version != n.stat.Version {
		return ErrBadVersion
	}
	if len(n.children) > 0 {
		return ErrNotEmpty
	}
	parentPath := ParentPath(p)
	parent := tx.t.nodes[parentPath]
	name := BaseName(p)
	prevParent := parent.stat
	delete(tx.t.nodes, p)
	delete(parent.children, name)
	// ZooKeeper (DataTree.deleteNode) moves only the parent's pzxid: the
	// stored cversion counts creates, and the visible one rises by itself
	// as the child count falls.
	parent.stat.Pzxid = tx.zxid
	owner := tx.t.sessions[n.stat.EphemeralOwner]
	if owner != nil {
		delete(owner.ephemerals, p)
	}
	tx.undo = append(tx.undo, func() {
		tx.t.nodes[p] = n
		parent.children[name] = struct{}{}
		parent.stat = prevParent
		if owner != nil {
			owner.ephemerals[p] = struct{}{}
		}
	})
	// ZooKeeper's order: the node's data watches, its child watches, then
	// the parent's child watches.
	tx.fire = append(tx.fire,
		firing{path: p, typ: EventNodeDeleted},
		firing{path: p, typ: EventNodeDeleted, child: true},
		firing{path: parentPath, typ: EventNodeChildrenChanged, child: true})
	tx.changed = true
	return nil
}

func (tx *txn) check(p string, version int32) error {
	if err := ValidatePath(p); err != nil {
		return err
	}
	n := tx.t.nodes[p]
	if n == nil {
		return ErrNoNode
	}
	if version != -1 && version != n.stat.Version {
		return ErrBadVersion
	}
	return nil
}

func (tx *txn) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
	tx.undo, tx.fire, tx.changed = nil, nil, false
}

// commit makes the changes durable, then fires the watches. If the write
// fails the changes are undone and the store fails stop.
func (tx *txn) commit() error {
	if !tx.changed {
		return nil
	}
	t := tx.t
	prevZxid := t.zxid
	t.zxid = tx.zxid
	if t.failed == nil {
		if err := t.persist(); err != nil {
			tx.rollback()
			t.zxid = prevZxid
			t.failed = err
			t.logger.Error("meta: embedded store write failed; refusing further use", "file", t.file, "err", err)
			return err
		}
	}
	for _, f := range tx.fire {
		if f.child {
			t.trigger(t.childW, f.path, f.typ)
		} else {
			t.trigger(t.dataW, f.path, f.typ)
		}
	}
	return nil
}

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// ewatch is one outstanding one-shot watch.
type ewatch struct {
	owner *Embedded
	ch    chan Event
}

func (t *tree) addWatch(table map[string][]*ewatch, p string, owner *Embedded) <-chan Event {
	w := &ewatch{owner: owner, ch: make(chan Event, 1)}
	table[p] = append(table[p], w)
	return w.ch
}

// trigger fires and removes every watch on p in table. Sends never block:
// each channel has room for its single event.
func (t *tree) trigger(table map[string][]*ewatch, p string, typ EventType) {
	for _, w := range table[p] {
		w.ch <- Event{Type: typ, Path: p}
		close(w.ch)
	}
	delete(table, p)
}

// dropWatches fires NotWatching on every watch owned by a session that is
// ending, as a ZooKeeper client does when its session expires or closes.
func (t *tree) dropWatches(owner *Embedded, reason error) {
	for _, table := range []map[string][]*ewatch{t.dataW, t.childW} {
		for p, ws := range table {
			keep := ws[:0]
			for _, w := range ws {
				if w.owner != owner {
					keep = append(keep, w)
					continue
				}
				w.ch <- Event{Type: EventNotWatching, Path: p, Err: reason}
				close(w.ch)
			}
			if len(keep) == 0 {
				delete(table, p)
			} else {
				table[p] = keep
			}
		}
	}
}

// usable reports why the tree cannot serve calls, if it cannot.
func (t *tree) usable() error {
	if t.failed != nil {
		return fmt.Errorf("embedded store failed earlier: %w", t.failed)
	}
	return nil
}
