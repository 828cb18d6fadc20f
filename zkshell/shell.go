package zkshell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"kafgo/broker/meta"
	"kafgo/internal/zkconnect"
)

// SessionTimeout is ZooKeeperMain's default -timeout.
const SessionTimeout = 30 * time.Second

// Shell runs ZooKeeper CLI commands against one store.
type Shell struct {
	store  meta.Store
	chroot string // prefixed to every path; "" for none

	// Out and Err receive what ZooKeeper's CLI prints on standard output
	// and standard error.
	Out, Err io.Writer
	// AllowWrites permits create, set, delete and deleteall.
	AllowWrites bool
	// Loc is the time zone of printed times (Java's default zone); nil is
	// time.Local.
	Loc *time.Location

	// interactive makes -w watches print their events.
	interactive bool
	mu          sync.Mutex // serializes output with watch events
}

// Dial connects to the servers of connect ("host:port[,...][/chroot]")
// without creating the chroot, printing ZooKeeper's banner on out.
func Dial(ctx context.Context, connect string, out io.Writer) (*Shell, error) {
	servers, chroot, err := zkconnect.Parse(connect)
	if err != nil {
		return nil, fmt.Errorf("zookeeper-shell: %s: %w", connect, err)
	}
	fmt.Fprintf(out, "Connecting to %s\n", connect)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := meta.DialZooKeeper(ctx, strings.Join(servers, ","), SessionTimeout, logger)
	if err != nil {
		return nil, fmt.Errorf("zookeeper-shell: connecting to %s: %w", connect, err)
	}
	fmt.Fprint(out, "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n")
	return &Shell{store: store, chroot: chroot, Out: out}, nil
}

// NewShell runs commands against store (tests use the embedded store).
func NewShell(store meta.Store, out, errOut io.Writer) *Shell {
	return &Shell{store: store, Out: out, Err: errOut}
}

// Close ends the session.
func (s *Shell) Close() error { return s.store.Close() }

// ExitError is a failed command whose message the shell has printed; its
// code is ZooKeeperMain's exit status.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string         { return e.Msg }
func (e *ExitError) ExitCode() int         { return e.Code }
func (e *ExitError) AlreadyReported() bool { return true }

// command is one CLI command: its usage (ZooKeeper's option string), its
// options (true: takes a value), whether it writes, and its body.
type command struct {
	usage string
	opts  map[string]bool
	write bool
	run   func(s *Shell, ctx context.Context, c *parsed) error
}

// parsed is a command line after option parsing.
type parsed struct {
	name string
	opts map[string]string
	args []string // positional arguments, the command name first
}

func (p *parsed) has(o string) bool { _, ok := p.opts[o]; return ok }

var commands = map[string]command{
	"ls":                   {"[-s] [-w] [-R] path", map[string]bool{"s": false, "w": false, "R": false}, false, (*Shell).ls},
	"get":                  {"[-s] [-w] path", map[string]bool{"s": false, "w": false}, false, (*Shell).get},
	"stat":                 {"[-w] path", map[string]bool{"w": false}, false, (*Shell).stat},
	"getAllChildrenNumber": {"path", nil, false, (*Shell).childrenNumber},
	"create":               {"[-s] [-e] [-c] [-t ttl] path [data] [acl]", map[string]bool{"s": false, "e": false, "c": false, "t": true}, true, (*Shell).create},
	"set":                  {"[-s] [-v version] path data", map[string]bool{"s": false, "v": true}, true, (*Shell).set},
	"delete":               {"[-v version] path", map[string]bool{"v": true}, true, (*Shell).delete},
	"deleteall":            {"path [-b batch size]", map[string]bool{"b": true}, true, (*Shell).deleteAll},
	"quit":                 {"", nil, false, nil},
}

// zkCommands are ZooKeeper 3.8's other commands: known, and refused by
// name rather than reported as unknown.
var zkCommands = []string{"addWatch", "addauth", "close", "config", "connect", "delquota", "getAcl", "getEphemerals",
	"history", "listquota", "printwatches", "reconfig", "redo", "removewatches", "setAcl", "setquota", "sync", "version", "whoami"}

// Usage is Kafka's usage text (ZooKeeperMainWithTlsSupportForKafka's
// kafkaTlsUsage) for the commands kafgo offers.
func Usage() string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("ZooKeeper -server host:port [-zk-tls-config-file <file>] cmd args\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%s %s\n", n, commands[n].usage)
	}
	return b.String()
}

// fail prints msg on the error stream and returns it with ZooKeeper's
// exit status for a failed command.
func (s *Shell) fail(code int, msg string) error {
	s.mu.Lock()
	fmt.Fprintln(s.Err, msg)
	s.mu.Unlock()
	return &ExitError{Code: code, Msg: msg}
}

// Exec runs one command line.
func (s *Shell) Exec(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		for _, n := range zkCommands {
			if n == args[0] {
				return s.fail(1, fmt.Sprintf("kafgo zookeeper-shell does not offer ZooKeeper's %s command", n))
			}
		}
		s.mu.Lock()
		fmt.Fprint(s.Err, Usage())
		s.mu.Unlock()
		return s.fail(127, "Command not found: Command not found "+args[0])
	}
	if cmd.run == nil {
		return nil // quit: the caller stops reading
	}
	p := &parsed{name: args[0], opts: map[string]string{}, args: args[:1]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			takesValue, known := cmd.opts[a[1:]]
			if !known {
				return s.fail(1, "org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: "+a)
			}
			if takesValue {
				if i+1 >= len(args) {
					return s.fail(1, "org.apache.commons.cli.MissingArgumentException: Missing argument for option: "+a[1:])
				}
				i++
				p.opts[a[1:]] = args[i]
				continue
			}
			p.opts[a[1:]] = ""
			continue
		}
		p.args = append(p.args, a)
	}
	if len(p.args) < 2 {
		return s.fail(1, p.name+" "+cmd.usage)
	}
	if cmd.write && !s.AllowWrites {
		return s.fail(1, fmt.Sprintf("%s changes ZooKeeper, which holds the cluster's metadata: zookeeper-shell is read-only unless --allow-writes is given", p.name))
	}
	if err := checkPath(p.args[1]); err != nil {
		return s.fail(1, err.Error())
	}
	return cmd.run(s, ctx, p)
}

// checkPath is ZooKeeper's PathUtils.validatePath, for the two faults
// operators make.
func checkPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return errors.New("Path must start with / character")
	case len(p) > 1 && strings.HasSuffix(p, "/"):
		return errors.New("Path must not end with / character")
	case strings.Contains(p, "//"):
		return fmt.Errorf("empty node name specified @%d", strings.Index(p, "//")+1)
	}
	return nil
}

// full is the store path of a shell path.
func (s *Shell) full(p string) string {
	if s.chroot == "" {
		return p
	}
	if p == "/" {
		return s.chroot
	}
	return s.chroot + p
}

// relative is the shell path of a store path.
func (s *Shell) relative(p string) string {
	if s.chroot == "" {
		return p
	}
	if p == s.chroot {
		return "/"
	}
	return strings.TrimPrefix(p, s.chroot)
}

// nodeError words a store error as ZooKeeper's CLI does.
func (s *Shell) nodeError(err error, path string) error {
	switch {
	case errors.Is(err, meta.ErrNoNode):
		return s.fail(1, "Node does not exist: "+path)
	case errors.Is(err, meta.ErrNodeExists):
		return s.fail(1, "Node already exists: "+path)
	case errors.Is(err, meta.ErrNotEmpty):
		return s.fail(1, "Node not empty: "+path)
	case errors.Is(err, meta.ErrBadVersion):
		return s.fail(1, "version No is not valid : "+path)
	case errors.Is(err, meta.ErrNoChildrenForEphemerals):
		return s.fail(1, "Ephemerals cannot have children: "+path)
	}
	return s.fail(1, err.Error())
}

func (s *Shell) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.Out, format, args...)
}

// watch prints ev as ZooKeeper's watcher does, in interactive mode.
func (s *Shell) watch(ch <-chan meta.Event) {
	if !s.interactive || ch == nil {
		return
	}
	go func() {
		ev, ok := <-ch
		if !ok || ev.Type == meta.EventNotWatching {
			return
		}
		s.printf("\nWATCHER::\n\nWatchedEvent state:SyncConnected type:%s path:%s\n", eventName(ev.Type), s.relative(ev.Path))
	}()
}

func eventName(t meta.EventType) string {
	switch t {
	case meta.EventNodeCreated:
		return "NodeCreated"
	case meta.EventNodeDeleted:
		return "NodeDeleted"
	case meta.EventNodeDataChanged:
		return "NodeDataChanged"
	case meta.EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	}
	return "None"
}

func (s *Shell) ls(ctx context.Context, c *parsed) error {
	path := c.args[1]
	if c.has("R") {
		return s.lsRecursive(ctx, path)
	}
	var (
		children []string
		st       meta.Stat
		err      error
		ch       <-chan meta.Event
	)
	if c.has("w") {
		children, st, ch, err = s.store.ChildrenW(ctx, s.full(path))
	} else {
		children, st, err = s.store.Children(ctx, s.full(path))
	}
	if err != nil {
		return s.nodeError(err, path)
	}
	s.watch(ch)
	sort.Strings(children)
	out := "[" + strings.Join(children, ", ") + "]\n"
	if c.has("s") {
		out += s.formatStat(st)
	}
	s.printf("%s", out)
	return nil
}

// lsRecursive is ZKUtil.listSubTreeBFS: every path under path, breadth
// first, path itself first.
func (s *Shell) lsRecursive(ctx context.Context, path string) error {
	queue := []string{path}
	var all []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		children, _, err := s.store.Children(ctx, s.full(p))
		if err != nil {
			if errors.Is(err, meta.ErrNoNode) && p != path {
				continue // deleted while we walked
			}
			return s.nodeError(err, p)
		}
		all = append(all, p)
		sort.Strings(children)
		for _, c := range children {
			queue = append(queue, join(p, c))
		}
	}
	s.printf("%s\n", strings.Join(all, "\n"))
	return nil
}

func join(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

func (s *Shell) get(ctx context.Context, c *parsed) error {
	path := c.args[1]
	var (
		data []byte
		st   meta.Stat
		err  error
		ch   <-chan meta.Event
	)
	if c.has("w") {
		data, st, ch, err = s.store.GetW(ctx, s.full(path))
	} else {
		data, st, err = s.store.Get(ctx, s.full(path))
	}
	if err != nil {
		return s.nodeError(err, path)
	}
	s.watch(ch)
	out := text(data) + "\n"
	if c.has("s") {
		out += s.formatStat(st)
	}
	s.printf("%s", out)
	return nil
}

// text is new String(data, UTF_8), or "null" for a znode without data.
func text(data []byte) string {
	if data == nil {
		return "null"
	}
	return strings.ToValidUTF8(string(data), string(utf8.RuneError))
}

func (s *Shell) stat(ctx context.Context, c *parsed) error {
	path := c.args[1]
	var (
		ok  bool
		st  meta.Stat
		err error
		ch  <-chan meta.Event
	)
	if c.has("w") {
		ok, st, ch, err = s.store.ExistsW(ctx, s.full(path))
	} else {
		ok, st, err = s.store.Exists(ctx, s.full(path))
	}
	if err == nil && !ok {
		err = meta.ErrNoNode
	}
	s.watch(ch)
	if err != nil {
		return s.nodeError(err, path)
	}
	s.printf("%s", s.formatStat(st))
	return nil
}

func (s *Shell) childrenNumber(ctx context.Context, c *parsed) error {
	path := c.args[1]
	queue := []string{path}
	n := 0
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		children, _, err := s.store.Children(ctx, s.full(p))
		if err != nil {
			if errors.Is(err, meta.ErrNoNode) && p != path {
				continue
			}
			return s.nodeError(err, p)
		}
		n += len(children)
		for _, ch := range children {
			queue = append(queue, join(p, ch))
		}
	}
	s.printf("%d\n", n)
	return nil
}

func (s *Shell) create(ctx context.Context, c *parsed) error {
	path := c.args[1]
	if c.has("c") || c.has("t") {
		return s.fail(1, "container and TTL znodes (-c, -t) are not offered by kafgo zookeeper-shell")
	}
	if len(c.args) > 3 {
		return s.fail(1, "ACLs (the acl argument) are not offered by kafgo zookeeper-shell: znodes get the open ACL, as the brokers' own")
	}
	var data []byte
	if len(c.args) > 2 {
		data = []byte(c.args[2])
	}
	mode := meta.Persistent
	switch {
	case c.has("e") && c.has("s"):
		mode = meta.EphemeralSequential
	case c.has("e"):
		mode = meta.Ephemeral
	case c.has("s"):
		mode = meta.PersistentSequential
	}
	created, err := s.store.Create(ctx, s.full(path), data, mode)
	if err != nil {
		return s.nodeError(err, path)
	}
	s.mu.Lock()
	fmt.Fprintln(s.Err, "Created "+s.relative(created))
	s.mu.Unlock()
	return nil
}

func version(c *parsed) (int32, error) {
	v, ok := c.opts["v"]
	if !ok {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("-v %s: not a version number", v)
	}
	return int32(n), nil
}

func (s *Shell) set(ctx context.Context, c *parsed) error {
	path := c.args[1]
	if len(c.args) < 3 {
		return s.fail(1, "set [-s] [-v version] path data")
	}
	v, err := version(c)
	if err != nil {
		return s.fail(1, err.Error())
	}
	st, err := s.store.Set(ctx, s.full(path), []byte(c.args[2]), v)
	if err != nil {
		return s.nodeError(err, path)
	}
	if c.has("s") {
		s.printf("%s", s.formatStat(st))
	}
	return nil
}

func (s *Shell) delete(ctx context.Context, c *parsed) error {
	path := c.args[1]
	v, err := version(c)
	if err != nil {
		return s.fail(1, err.Error())
	}
	if err := s.store.Delete(ctx, s.full(path), v); err != nil {
		return s.nodeError(err, path)
	}
	return nil
}

// deleteAll is ZKUtil.deleteRecursive: the whole subtree, deepest first.
// -b (ZooKeeper's multi batch size) is accepted; each znode is deleted on
// its own.
func (s *Shell) deleteAll(ctx context.Context, c *parsed) error {
	path := c.args[1]
	if b, ok := c.opts["b"]; ok {
		if n, err := strconv.Atoi(b); err != nil || n <= 0 {
			return s.fail(1, "-b "+b+": not a positive batch size")
		}
	}
	if path == "/" {
		return s.fail(1, "deleteall / would delete the whole tree, ZooKeeper's own /zookeeper included: refused")
	}
	order := []string{path}
	for i := 0; i < len(order); i++ {
		children, _, err := s.store.Children(ctx, s.full(order[i]))
		if err != nil {
			if errors.Is(err, meta.ErrNoNode) && i > 0 {
				continue
			}
			return s.nodeError(err, order[i])
		}
		for _, ch := range children {
			order = append(order, join(order[i], ch))
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if err := s.store.Delete(ctx, s.full(order[i]), -1); err != nil && !errors.Is(err, meta.ErrNoNode) {
			return s.nodeError(err, order[i])
		}
	}
	return nil
}

// formatStat is ZooKeeper's StatPrinter: zxids and the owner in hex, times
// as java.util.Date.toString() in the shell's zone.
func (s *Shell) formatStat(st meta.Stat) string {
	loc := s.Loc
	if loc == nil {
		loc = time.Local
	}
	date := func(ms int64) string { return time.UnixMilli(ms).In(loc).Format("Mon Jan 02 15:04:05 MST 2006") }
	var b strings.Builder
	fmt.Fprintf(&b, "cZxid = 0x%x\n", uint64(st.Czxid))
	fmt.Fprintf(&b, "ctime = %s\n", date(st.Ctime))
	fmt.Fprintf(&b, "mZxid = 0x%x\n", uint64(st.Mzxid))
	fmt.Fprintf(&b, "mtime = %s\n", date(st.Mtime))
	fmt.Fprintf(&b, "pZxid = 0x%x\n", uint64(st.Pzxid))
	fmt.Fprintf(&b, "cversion = %d\n", st.Cversion)
	fmt.Fprintf(&b, "dataVersion = %d\n", st.Version)
	fmt.Fprintf(&b, "aclVersion = %d\n", st.Aversion)
	fmt.Fprintf(&b, "ephemeralOwner = 0x%x\n", uint64(st.EphemeralOwner))
	fmt.Fprintf(&b, "dataLength = %d\n", st.DataLength)
	fmt.Fprintf(&b, "numChildren = %d\n", st.NumChildren)
	return b.String()
}
