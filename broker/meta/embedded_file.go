package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"
)

// The embedded store's snapshot, <file>: one JSON document holding the
// whole tree as of a zxid, written to <file>.tmp, fsynced, renamed over
// <file>, and the directory fsynced, so the file is always either the old
// or the new snapshot. Changes since it are in the change log, <file>.log
// (embedded_log.go); the two together are the store's state:
//
//	{"format":"kafgo-meta","version":1,"crc32c":<n>,"state":<state>}
//
// crc32c is CRC-32C (Castagnoli) of the exact bytes of <state>:
//
//	{"zxid":<last zxid>,"nodes":[{"path":"/",...},...]}
//
// Each node: path, czxid, mzxid, pzxid, ctime, mtime, version, creates (the
// number of children ever created, which ZooKeeper persists as cversion
// and which names sequential children) and
// either "data" (UTF-8 text, so an operator can read Kafka's JSON in place)
// or "data_base64" (anything else); no data field means empty. Only
// persistent znodes are written: ephemerals belong to sessions, and no
// session outlives the process.
const (
	fileFormat  = "kafgo-meta"
	fileVersion = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type fileEnvelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	CRC32C  *uint32         `json:"crc32c"`
	State   json.RawMessage `json:"state"`
}

type fileState struct {
	Zxid  int64      `json:"zxid"`
	Nodes []fileNode `json:"nodes"`
}

type fileNode struct {
	Path    string  `json:"path"`
	Czxid   int64   `json:"czxid"`
	Mzxid   int64   `json:"mzxid"`
	Pzxid   int64   `json:"pzxid"`
	Ctime   int64   `json:"ctime"`
	Mtime   int64   `json:"mtime"`
	Version int32   `json:"version"`
	Creates int32   `json:"creates"`
	Data    *string `json:"data,omitempty"`
	Data64  []byte  `json:"data_base64,omitempty"`
}

// encodeState renders the persistent part of the tree, sorted by path so
// the file is deterministic and diffs well.
func (t *tree) encodeState() ([]byte, error) {
	st := fileState{Zxid: t.zxid, Nodes: make([]fileNode, 0, len(t.nodes))}
	for p, n := range t.nodes {
		if n.stat.EphemeralOwner != 0 {
			continue
		}
		st.Nodes = append(st.Nodes, fileNodeOf(p, n))
	}
	sort.Slice(st.Nodes, func(i, j int) bool { return st.Nodes[i].Path < st.Nodes[j].Path })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep Kafka's JSON readable inside the file
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// fileNodeOf is the persisted form of a znode.
func fileNodeOf(p string, n *enode) fileNode {
	fn := fileNode{
		Path: p, Czxid: n.stat.Czxid, Mzxid: n.stat.Mzxid, Pzxid: n.stat.Pzxid,
		Ctime: n.stat.Ctime, Mtime: n.stat.Mtime,
		Version: n.stat.Version, Creates: n.stat.Cversion,
	}
	if len(n.data) > 0 {
		if utf8.Valid(n.data) {
			s := string(n.data)
			fn.Data = &s
		} else {
			fn.Data64 = n.data
		}
	}
	return fn
}

// writeSnapshot writes the whole state durably (see the format comment)
// and returns its size.
func (t *tree) writeSnapshot() (int64, error) {
	state, err := t.encodeState()
	if err != nil {
		return 0, fmt.Errorf("meta: encode embedded store: %w", err)
	}
	var doc bytes.Buffer
	fmt.Fprintf(&doc, `{"format":%q,"version":%d,"crc32c":%d,"state":`, fileFormat, fileVersion, crc32.Checksum(state, castagnoli))
	doc.Write(state)
	doc.WriteString("}\n")

	tmp := t.file + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fmt.Errorf("meta: write embedded store: %w", err)
	}
	if _, err := f.Write(doc.Bytes()); err != nil {
		f.Close()
		return 0, fmt.Errorf("meta: write embedded store %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, fmt.Errorf("meta: fsync embedded store %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("meta: close embedded store %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, t.file); err != nil {
		return 0, fmt.Errorf("meta: rename embedded store: %w", err)
	}
	// The rename is durable only once the directory entry is.
	if err := syncDir(filepath.Dir(t.file)); err != nil {
		return 0, fmt.Errorf("meta: fsync embedded store dir: %w", err)
	}
	return int64(doc.Len()), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// load reads the snapshot and replays the change log into the tree (a
// fresh tree, root only, when there is neither), cuts off a torn last log
// record, and opens the log for appending. A stale <file>.tmp from a crash
// mid-snapshot is ignored: the rename never happened, so the file holds the
// previous snapshot, and the log still holds what followed it.
func (t *tree) load() error {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("meta: open embedded store %s: %w: %s (refusing to load it; restore it from a backup or move it away to start empty)",
			t.file, ErrCorrupt, fmt.Sprintf(format, args...))
	}
	st, size, err := t.readSnapshot(corrupt)
	if err != nil {
		return err
	}
	t.snapSize = size
	byPath := make(map[string]fileNode, len(st.Nodes))
	for _, fn := range st.Nodes {
		if _, dup := byPath[fn.Path]; dup {
			return corrupt("node %q appears twice", fn.Path)
		}
		byPath[fn.Path] = fn
	}
	logPath := t.file + ".log"
	recs, valid, err := readChangeLog(logPath)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return corrupt("change log %s: %v", logPath, err)
		}
		return fmt.Errorf("meta: open embedded store %s: %w", t.file, err)
	}
	replayed := 0
	for _, r := range recs {
		if r.Zxid <= st.Zxid {
			continue // already in the snapshot
		}
		for _, fn := range r.Put {
			byPath[fn.Path] = fn
		}
		for _, p := range r.Del {
			delete(byPath, p)
		}
		st.Zxid = r.Zxid
		replayed++
	}
	nodes, err := linkNodes(byPath, st.Zxid, corrupt)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > valid {
		t.logger.Warn("meta: cutting off the embedded store's torn last change", "file", logPath, "bytes", fi.Size()-valid)
		if err := cutTail(logPath, valid); err != nil {
			return fmt.Errorf("meta: open embedded store %s: %w", t.file, err)
		}
	}
	if t.log, err = openChangeLog(logPath); err != nil {
		return fmt.Errorf("meta: open embedded store %s: %w", t.file, err)
	}
	if replayed > 0 {
		t.logger.Info("meta: embedded store changes replayed", "changes", replayed)
	}
	t.nodes, t.zxid = nodes, st.Zxid
	return nil
}

// readSnapshot reads and checks <file>; none yet is an empty tree (root
// only, zxid 0).
func (t *tree) readSnapshot(corrupt func(string, ...any) error) (fileState, int64, error) {
	empty := fileState{Nodes: []fileNode{{Path: "/"}}}
	b, err := os.ReadFile(t.file)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, 0, nil
	}
	if err != nil {
		return fileState{}, 0, fmt.Errorf("meta: open embedded store %s: %w", t.file, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return fileState{}, 0, corrupt("the file is empty")
	}
	var env fileEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		return fileState{}, 0, corrupt("not a complete JSON document, truncated or half-written? (%v)", err)
	}
	if env.Format != fileFormat {
		return fileState{}, 0, corrupt("format is %q, want %q", env.Format, fileFormat)
	}
	if env.Version != fileVersion {
		return fileState{}, 0, fmt.Errorf("meta: open embedded store %s: format version %d is not supported (this kafgo reads version %d)", t.file, env.Version, fileVersion)
	}
	if env.CRC32C == nil || len(env.State) == 0 {
		return fileState{}, 0, corrupt("crc32c or state missing")
	}
	if got := crc32.Checksum(env.State, castagnoli); got != *env.CRC32C {
		return fileState{}, 0, corrupt("crc32c mismatch: stored %d, computed %d", *env.CRC32C, got)
	}
	var st fileState
	dec := json.NewDecoder(bytes.NewReader(env.State))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return fileState{}, 0, corrupt("state: %v", err)
	}
	return st, int64(len(b)), nil
}

// linkNodes builds the tree from persisted nodes, checking it: valid
// paths, zxids and versions within the store's, a root, a parent for every
// node, and child counts the creates allow.
func linkNodes(byPath map[string]fileNode, zxid int64, corrupt func(string, ...any) error) (map[string]*enode, error) {
	nodes := make(map[string]*enode, len(byPath))
	for _, fn := range byPath {
		if err := ValidatePath(fn.Path); err != nil {
			return nil, corrupt("node %q: %v", fn.Path, err)
		}
		if fn.Czxid > zxid || fn.Mzxid > zxid || fn.Pzxid > zxid || fn.Version < 0 || fn.Creates < 0 {
			return nil, corrupt("node %q has zxids or versions beyond the store's (zxid %d)", fn.Path, zxid)
		}
		n := &enode{
			children: make(map[string]struct{}),
			stat: Stat{Czxid: fn.Czxid, Mzxid: fn.Mzxid, Pzxid: fn.Pzxid, Ctime: fn.Ctime, Mtime: fn.Mtime,
				Version: fn.Version, Cversion: fn.Creates},
		}
		switch {
		case fn.Data != nil && fn.Data64 != nil:
			return nil, corrupt("node %q has both data and data_base64", fn.Path)
		case fn.Data != nil:
			n.data = clone([]byte(*fn.Data))
		default:
			n.data = clone(fn.Data64)
		}
		nodes[fn.Path] = n
	}
	if nodes["/"] == nil {
		return nil, corrupt("the root znode is missing")
	}
	for p := range nodes {
		if p == "/" {
			continue
		}
		parent := nodes[ParentPath(p)]
		if parent == nil {
			return nil, corrupt("node %q has no parent", p)
		}
		parent.children[BaseName(p)] = struct{}{}
	}
	for p, n := range nodes {
		if int(n.stat.Cversion) < len(n.children) {
			return nil, corrupt("node %q has %d children but only %d were ever created", p, len(n.children), n.stat.Cversion)
		}
	}
	return nodes, nil
}
