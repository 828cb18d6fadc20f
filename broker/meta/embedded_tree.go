package meta

import (
	"bytes"
	"context"
	"encoding/json"
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
	// log is the change log since the snapshot (snapSize bytes when
	// written); pending holds the watch firings of transactions appended
	// but not yet known durable, in commit order.
	log      *changeLog
	snapSize int64
	pending  []pendingFiring
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

// reacquire takes the tree back after waiting for durability without it:
// the caller's deferred release expects to hold it.
func (t *tree) reacquire() { t.sem <- struct{}{} }

// pendingFiring is a committed transaction's watch firings, held until its
// change log record is durable.
type pendingFiring struct {
	seq  uint64
	fire []firing
}

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
	// touched lists the znodes created, changed or deleted, for the
	// change log record.
	touched []string
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
	tx.touched = append(tx.touched, final, parentPath)
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
	tx.touched = append(tx.touched, p)
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
	tx.touched = append(tx.touched, p, parentPath)
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
	tx.undo, tx.fire, tx.touched, tx.changed = nil, nil, nil, false
}

// commit appends the transaction to the change log, waits (without the
// tree, so transactions committing meanwhile share one sync) until it is
// durable, then fires the watches of every transaction now durable, in
// commit order, and folds the log into a snapshot when it has grown past
// it. The caller holds the tree before and after.
//
// If the append fails the changes are undone and the store fails stop. If
// the sync fails, the change may already be visible in memory to calls
// that ran meanwhile (they too wait for durability before returning, and
// fail with it), and the store fails stop.
func (tx *txn) commit() error {
	if !tx.changed {
		return nil
	}
	t := tx.t
	if err := t.usable(); err != nil {
		tx.rollback()
		return err
	}
	prevZxid := t.zxid
	t.zxid = tx.zxid
	seq, err := t.log.append(tx.record())
	if err != nil {
		tx.rollback()
		t.zxid = prevZxid
		t.failStop(fmt.Errorf("append to the change log: %w", err))
		return err
	}
	t.pending = append(t.pending, pendingFiring{seq: seq, fire: tx.fire})
	t.release()
	err = t.log.waitSynced(seq)
	t.reacquire()
	if err != nil {
		t.failStop(err)
		return err
	}
	t.fireDurable()
	if t.log.size > max(snapshotMinLog, t.snapSize) {
		if err := t.snapshot(); err != nil {
			t.failStop(err)
			return err
		}
	}
	return nil
}

// record is the change log record of the transaction: the state of every
// persistent znode it touched, or its deletion.
func (tx *txn) record() []byte {
	r := logRecord{Zxid: tx.zxid}
	seen := make(map[string]bool, len(tx.touched))
	for _, p := range tx.touched {
		if seen[p] {
			continue
		}
		seen[p] = true
		n := tx.t.nodes[p]
		switch {
		case n == nil:
			r.Del = append(r.Del, p)
		case n.stat.EphemeralOwner == 0:
			r.Put = append(r.Put, fileNodeOf(p, n))
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // strings and numbers only: cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// fireDurable fires, in commit order, the watches of every transaction the
// log has made durable (tree held).
func (t *tree) fireDurable() {
	t.log.mu.Lock()
	synced := t.log.synced
	t.log.mu.Unlock()
	n := 0
	for _, pf := range t.pending {
		if pf.seq > synced {
			break
		}
		for _, f := range pf.fire {
			if f.child {
				t.trigger(t.childW, f.path, f.typ)
			} else {
				t.trigger(t.dataW, f.path, f.typ)
			}
		}
		n++
	}
	t.pending = t.pending[n:]
}

// snapshot writes the whole tree as the new snapshot and empties the
// change log (tree held). Every appended record is made durable first.
func (t *tree) snapshot() error {
	if err := t.log.waitSynced(t.log.appended.Load()); err != nil {
		return err
	}
	t.fireDurable()
	size, err := t.writeSnapshot()
	if err != nil {
		return err
	}
	t.snapSize = size
	return t.log.reset()
}

// failStop marks the store failed: memory and disk may disagree, and
// carrying on could hand out a version or sequence number twice.
func (t *tree) failStop(err error) {
	if t.failed == nil {
		t.failed = err
		t.logger.Error("meta: embedded store write failed; refusing further use", "file", t.file, "err", err)
	}
}

// durable waits, after a read released the tree, until every change the
// read could have seen is durable, so no caller acts on state a crash
// could take back.
func (t *tree) durable(seen uint64) error {
	if err := t.log.waitSynced(seen); err != nil {
		return fmt.Errorf("embedded store failed: %w", err)
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
