package meta_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"kafgo/broker/meta"
)

// backend gives a conformance case sessions on one fresh, shared tree: each
// open() is another client (another ZooKeeper connection, or another
// embedded session). Sessions are closed when the test ends.
type backend struct {
	open func(t *testing.T) meta.Store
}

// conformanceCases is the behaviour both stores must share, so the
// controller has one code path. Each case starts from an empty tree.
var conformanceCases = []struct {
	name string
	run  func(t *testing.T, b backend)
}{
	{"CreateModes", testCreateModes},
	{"SequentialNumbering", testSequentialNumbering},
	{"VersionsAndStats", testVersionsAndStats},
	{"DataWatch", testDataWatch},
	{"ExistsWatch", testExistsWatch},
	{"ChildWatch", testChildWatch},
	{"WatchPerRegistration", testWatchPerRegistration},
	{"MultiCommits", testMultiCommits},
	{"MultiRollsBack", testMultiRollsBack},
	{"RecursiveHelpers", testRecursiveHelpers},
	{"EphemeralsGoWithClosedSession", testEphemeralsOnClose},
	{"SessionExpiry", testSessionExpiry},
	{"EphemeralElectionRace", testElectionRace},
	{"ContextHonoured", testContextHonoured},
	{"ClosedStore", testClosedStore},
}

func runConformance(t *testing.T, newBackend func(t *testing.T) backend) {
	for _, tc := range conformanceCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newBackend(t)) })
	}
}

func testCreateModes(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	start := time.Now().Add(-time.Minute).UnixMilli()

	p, err := s.Create(ctx, "/p", []byte("persist"), meta.Persistent)
	must(t, err)
	if p != "/p" {
		t.Fatalf("Create returned %q, want /p", p)
	}
	st := wantData(t, s, "/p", "persist")
	if st.EphemeralOwner != 0 || st.Version != 0 || st.DataLength != 7 || st.NumChildren != 0 {
		t.Fatalf("stat of persistent /p = %+v", st)
	}
	if st.Czxid <= 0 || st.Mzxid != st.Czxid || st.Pzxid != st.Czxid || st.Ctime < start || st.Mtime != st.Ctime {
		t.Fatalf("stat of new /p = %+v: want czxid=mzxid=pzxid>0, ctime=mtime near now", st)
	}

	_, err = s.Create(ctx, "/e", []byte("eph"), meta.Ephemeral)
	must(t, err)
	if st := wantData(t, s, "/e", "eph"); st.EphemeralOwner != s.SessionID() || s.SessionID() == 0 {
		t.Fatalf("ephemeral owner = %x, session = %x", st.EphemeralOwner, s.SessionID())
	}

	seq, err := s.Create(ctx, "/p/seq-", []byte("s"), meta.PersistentSequential)
	must(t, err)
	eseq, err := s.Create(ctx, "/p/eseq-", nil, meta.EphemeralSequential)
	must(t, err)
	if seq != "/p/seq-0000000000" || eseq != "/p/eseq-0000000001" {
		t.Fatalf("sequential creates = %q, %q; want /p/seq-0000000000, /p/eseq-0000000001", seq, eseq)
	}
	if _, st := getData(t, s, eseq); st.EphemeralOwner != s.SessionID() {
		t.Fatalf("ephemeral sequential owner = %x, want %x", st.EphemeralOwner, s.SessionID())
	}
	if _, st := getData(t, s, seq); st.EphemeralOwner != 0 {
		t.Fatalf("persistent sequential has owner %x", st.EphemeralOwner)
	}

	errs := []struct {
		name string
		path string
		mode meta.CreateMode
		want error
	}{
		{"exists", "/p", meta.Persistent, meta.ErrNodeExists},
		{"root exists", "/", meta.Persistent, meta.ErrNodeExists},
		{"no parent", "/missing/x", meta.Persistent, meta.ErrNoNode},
		{"ephemeral parent", "/e/child", meta.Persistent, meta.ErrNoChildrenForEphemerals},
		{"empty", "", meta.Persistent, meta.ErrInvalidPath},
		{"relative", "p", meta.Persistent, meta.ErrInvalidPath},
		{"trailing slash", "/p/", meta.Persistent, meta.ErrInvalidPath},
		{"empty component", "//p", meta.Persistent, meta.ErrInvalidPath},
		{"dot dot", "/p/../q", meta.Persistent, meta.ErrInvalidPath},
		{"dot", "/p/./q", meta.Persistent, meta.ErrInvalidPath},
		{"bad mode", "/q", meta.CreateMode(9), meta.ErrInvalidPath},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(ctx, tc.path, nil, tc.mode)
			wantErr(t, err, tc.want)
		})
	}
}

func testSequentialNumbering(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	_, err := s.Create(ctx, "/seq", nil, meta.Persistent)
	must(t, err)
	// ZooKeeper numbers a sequential child with the count of children ever
	// created under the parent, sequential or not; deletes do not count
	// there, though they do raise the visible cversion (creates + deletes).
	steps := []struct {
		op   string
		path string
		want string
	}{
		{"seq", "/seq/n-", "/seq/n-0000000000"},
		{"plain", "/seq/plain", "/seq/plain"},
		{"seq", "/seq/n-", "/seq/n-0000000002"},
		{"delete", "/seq/plain", ""},
		{"eseq", "/seq/n-", "/seq/n-0000000003"},
		{"seq", "/seq/", "/seq/0000000004"},
	}
	for i, st := range steps {
		switch st.op {
		case "delete":
			must(t, s.Delete(ctx, st.path, -1))
		default:
			mode := map[string]meta.CreateMode{"seq": meta.PersistentSequential, "plain": meta.Persistent, "eseq": meta.EphemeralSequential}[st.op]
			got, err := s.Create(ctx, st.path, nil, mode)
			must(t, err)
			if got != st.want {
				t.Fatalf("step %d: create %s (%v) = %q, want %q", i, st.path, mode, got, st.want)
			}
		}
	}
	kids, st, err := s.Children(ctx, "/seq")
	must(t, err)
	want := []string{"0000000004", "n-0000000000", "n-0000000002", "n-0000000003"}
	if !slices.Equal(kids, want) {
		t.Fatalf("children = %v, want %v (sorted)", kids, want)
	}
	if st.Cversion != 6 || st.NumChildren != 4 {
		t.Fatalf("parent stat = %+v, want cversion 6 (5 creates + 1 delete), 4 children", st)
	}
	for _, k := range kids {
		n, err := meta.SequenceNumber(k)
		must(t, err)
		if n < 0 || n > 4 {
			t.Fatalf("SequenceNumber(%q) = %d", k, n)
		}
	}
}

func testVersionsAndStats(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	_, err := s.Create(ctx, "/v", []byte("a"), meta.Persistent)
	must(t, err)
	created := wantData(t, s, "/v", "a")

	st, err := s.Set(ctx, "/v", []byte("bb"), 0)
	must(t, err)
	if st.Version != 1 || st.DataLength != 2 || st.Czxid != created.Czxid || st.Mzxid <= created.Mzxid || st.Mtime < created.Mtime {
		t.Fatalf("stat after set = %+v (created %+v)", st, created)
	}
	_, err = s.Set(ctx, "/v", []byte("c"), 0)
	wantErr(t, err, meta.ErrBadVersion)
	st, err = s.Set(ctx, "/v", []byte("c"), -1)
	must(t, err)
	if st.Version != 2 {
		t.Fatalf("version after unconditional set = %d, want 2", st.Version)
	}
	_, err = s.Set(ctx, "/missing", nil, -1)
	wantErr(t, err, meta.ErrNoNode)
	wantErr(t, s.Delete(ctx, "/v", 1), meta.ErrBadVersion)

	kid, err := s.Create(ctx, "/v/c", nil, meta.Persistent)
	must(t, err)
	_, kidStat := getData(t, s, kid)
	_, parent := getData(t, s, "/v")
	if parent.Cversion != 1 || parent.NumChildren != 1 || parent.Pzxid != kidStat.Czxid || parent.Version != 2 {
		t.Fatalf("parent stat after child create = %+v, child czxid %d", parent, kidStat.Czxid)
	}
	ok, est, err := s.Exists(ctx, "/v")
	must(t, err)
	if !ok || est != parent {
		t.Fatalf("Exists stat = %v %+v, want Get's %+v", ok, est, parent)
	}
	wantErr(t, s.Delete(ctx, "/v", -1), meta.ErrNotEmpty)
	must(t, s.Delete(ctx, "/v/c", 0))
	must(t, s.Delete(ctx, "/v", 2))

	ok, est, err = s.Exists(ctx, "/v")
	must(t, err)
	if ok || est != (meta.Stat{}) {
		t.Fatalf("Exists after delete = %v %+v", ok, est)
	}
	_, _, err = s.Get(ctx, "/v")
	wantErr(t, err, meta.ErrNoNode)
	_, _, err = s.Children(ctx, "/v")
	wantErr(t, err, meta.ErrNoNode)
	wantErr(t, s.Delete(ctx, "/v", -1), meta.ErrNoNode)
	wantErr(t, s.Delete(ctx, "/", -1), meta.ErrInvalidPath)

	for _, name := range []string{"c", "a", "b"} {
		_, err := s.Create(ctx, "/"+name+"x", nil, meta.Persistent)
		must(t, err)
	}
	kids, _, err := s.Children(ctx, "/")
	must(t, err)
	kids = slices.DeleteFunc(kids, func(k string) bool { return k == "zookeeper" })
	if !slices.Equal(kids, []string{"ax", "bx", "cx"}) {
		t.Fatalf("children of / = %v, want sorted [ax bx cx]", kids)
	}
}

func testDataWatch(t *testing.T, b backend) {
	ctx := testCtx(t)
	s, other := b.open(t), b.open(t)
	_, err := s.Create(ctx, "/w", []byte("0"), meta.Persistent)
	must(t, err)

	_, _, ch, err := s.GetW(ctx, "/w")
	must(t, err)
	_, err = other.Set(ctx, "/w", []byte("1"), -1)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeDataChanged, "/w")

	// A child create is no data change: the next event is the Set's.
	_, _, ch, err = s.GetW(ctx, "/w")
	must(t, err)
	_, err = other.Create(ctx, "/w/kid", nil, meta.Persistent)
	must(t, err)
	_, err = other.Set(ctx, "/w", []byte("2"), -1)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeDataChanged, "/w")

	// Nor is a child delete: the next event is the znode's own deletion.
	_, _, ch, err = s.GetW(ctx, "/w")
	must(t, err)
	must(t, other.Delete(ctx, "/w/kid", -1))
	must(t, other.Delete(ctx, "/w", -1))
	waitEvent(t, ch, meta.EventNodeDeleted, "/w")

	_, _, ch, err = s.GetW(ctx, "/w")
	wantErr(t, err, meta.ErrNoNode)
	if ch != nil {
		t.Fatal("GetW on a missing znode returned a watch")
	}
}

func testExistsWatch(t *testing.T, b backend) {
	ctx := testCtx(t)
	s, other := b.open(t), b.open(t)
	ok, _, ch, err := s.ExistsW(ctx, "/x")
	must(t, err)
	if ok {
		t.Fatal("/x exists before creation")
	}
	_, err = other.Create(ctx, "/x", nil, meta.Persistent)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeCreated, "/x")

	ok, _, ch, err = s.ExistsW(ctx, "/x")
	must(t, err)
	if !ok {
		t.Fatal("/x missing after creation")
	}
	_, err = other.Set(ctx, "/x", []byte("d"), -1)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeDataChanged, "/x")

	_, _, ch, err = s.ExistsW(ctx, "/x")
	must(t, err)
	must(t, other.Delete(ctx, "/x", -1))
	waitEvent(t, ch, meta.EventNodeDeleted, "/x")
}

func testChildWatch(t *testing.T, b backend) {
	ctx := testCtx(t)
	s, other := b.open(t), b.open(t)
	_, err := s.Create(ctx, "/c", nil, meta.Persistent)
	must(t, err)

	kids, _, ch, err := s.ChildrenW(ctx, "/c")
	must(t, err)
	if len(kids) != 0 {
		t.Fatalf("children = %v", kids)
	}
	// The parent's own data change is not a child change.
	_, err = other.Set(ctx, "/c", []byte("data"), -1)
	must(t, err)
	_, err = other.Create(ctx, "/c/a", nil, meta.Persistent)
	must(t, err)
	waitEvent(t, ch, meta.EventNodeChildrenChanged, "/c")

	kids, _, ch, err = s.ChildrenW(ctx, "/c")
	must(t, err)
	if !slices.Equal(kids, []string{"a"}) {
		t.Fatalf("children = %v, want [a]", kids)
	}
	// A child's data change is not a child change either.
	_, err = other.Set(ctx, "/c/a", []byte("x"), -1)
	must(t, err)
	must(t, other.Delete(ctx, "/c/a", -1))
	waitEvent(t, ch, meta.EventNodeChildrenChanged, "/c")

	_, _, ch, err = s.ChildrenW(ctx, "/c")
	must(t, err)
	must(t, other.Delete(ctx, "/c", -1))
	waitEvent(t, ch, meta.EventNodeDeleted, "/c")

	_, _, _, err = s.ChildrenW(ctx, "/c")
	wantErr(t, err, meta.ErrNoNode)
}

func testWatchPerRegistration(t *testing.T, b backend) {
	ctx := testCtx(t)
	s, other := b.open(t), b.open(t)
	_, err := s.Create(ctx, "/r", nil, meta.Persistent)
	must(t, err)
	// Every registration gets the event, also two on one session.
	_, _, ch1, err := s.GetW(ctx, "/r")
	must(t, err)
	_, _, ch2, err := s.GetW(ctx, "/r")
	must(t, err)
	_, _, ch3, err := other.GetW(ctx, "/r")
	must(t, err)
	_, err = other.Set(ctx, "/r", []byte("1"), -1)
	must(t, err)
	for _, ch := range []<-chan meta.Event{ch1, ch2, ch3} {
		waitEvent(t, ch, meta.EventNodeDataChanged, "/r")
	}
	// A later change finds no watch armed: re-arm, and only the new
	// registration sees the next change.
	_, _, ch4, err := s.GetW(ctx, "/r")
	must(t, err)
	_, err = other.Set(ctx, "/r", []byte("2"), -1)
	must(t, err)
	waitEvent(t, ch4, meta.EventNodeDataChanged, "/r")
}

func testMultiCommits(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	_, err := s.Create(ctx, "/m", []byte("0"), meta.Persistent)
	must(t, err)
	_, _, watch, err := s.ChildrenW(ctx, "/m")
	must(t, err)

	res, err := s.Multi(ctx,
		meta.CheckOp{Path: "/m", Version: 0},
		meta.CreateOp{Path: "/m/a", Data: []byte("a"), Mode: meta.Persistent},
		&meta.CreateOp{Path: "/m/s-", Mode: meta.PersistentSequential},
		meta.SetOp{Path: "/m", Data: []byte("1"), Version: 0},
		meta.CreateOp{Path: "/m/e", Mode: meta.Ephemeral},
		&meta.DeleteOp{Path: "/m/e", Version: -1},
	)
	must(t, err)
	wantPaths := []string{"/m", "/m/a", "/m/s-0000000001", "/m", "/m/e", "/m/e"}
	if len(res) != len(wantPaths) {
		t.Fatalf("%d results, want %d", len(res), len(wantPaths))
	}
	for i, r := range res {
		if r.Err != nil || r.Path != wantPaths[i] {
			t.Fatalf("result %d = %+v, want path %q", i, r, wantPaths[i])
		}
	}
	if res[3].Stat.Version != 1 {
		t.Fatalf("SetOp stat = %+v, want version 1", res[3].Stat)
	}
	st := wantData(t, s, "/m", "1")
	wantData(t, s, "/m/a", "a")
	wantData(t, s, "/m/s-0000000001", "")
	wantMissing(t, s, "/m/e")
	// One transaction: every change carries the same zxid.
	_, a := getData(t, s, "/m/a")
	if st.Mzxid != a.Czxid || st.Pzxid != a.Czxid {
		t.Fatalf("multi changes have different zxids: /m %+v, /m/a %+v", st, a)
	}
	waitEvent(t, watch, meta.EventNodeChildrenChanged, "/m")

	res, err = s.Multi(ctx)
	if err != nil || len(res) != 0 {
		t.Fatalf("empty multi = %v, %v", res, err)
	}
}

func testMultiRollsBack(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	_, err := s.Create(ctx, "/r", []byte("0"), meta.Persistent)
	must(t, err)
	_, before := getData(t, s, "/r")

	cases := []struct {
		name    string
		ops     []meta.Op
		failing int
		want    error
	}{
		{"check fails last", []meta.Op{
			meta.CreateOp{Path: "/r/new", Mode: meta.Persistent},
			meta.SetOp{Path: "/r", Data: []byte("changed"), Version: -1},
			meta.DeleteOp{Path: "/r/new", Version: -1},
			meta.CheckOp{Path: "/r", Version: 5},
		}, 3, meta.ErrBadVersion},
		{"check fails first", []meta.Op{
			meta.CheckOp{Path: "/r", Version: 7},
			meta.CreateOp{Path: "/r/new", Mode: meta.Persistent},
		}, 0, meta.ErrBadVersion},
		{"conflicting creates", []meta.Op{
			meta.CreateOp{Path: "/r/x", Mode: meta.Persistent},
			meta.CreateOp{Path: "/r/x", Mode: meta.Persistent},
		}, 1, meta.ErrNodeExists},
		{"missing node", []meta.Op{
			meta.SetOp{Path: "/r", Data: []byte("changed"), Version: 0},
			meta.DeleteOp{Path: "/r/none", Version: -1},
		}, 1, meta.ErrNoNode},
		{"invalid path", []meta.Op{
			meta.CreateOp{Path: "/r/ok", Mode: meta.Persistent},
			meta.CreateOp{Path: "r/bad", Mode: meta.Persistent},
		}, 1, meta.ErrInvalidPath},
		{"ephemeral then child", []meta.Op{
			meta.CreateOp{Path: "/r/eph", Mode: meta.Ephemeral},
			meta.CreateOp{Path: "/r/eph/kid", Mode: meta.Persistent},
		}, 1, meta.ErrNoChildrenForEphemerals},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Multi(ctx, tc.ops...)
			wantErr(t, err, tc.want)
			if len(res) != len(tc.ops) {
				t.Fatalf("%d results for %d ops", len(res), len(tc.ops))
			}
			for i, r := range res {
				want := meta.ErrRolledBack
				if i == tc.failing {
					want = tc.want
				}
				if !errors.Is(r.Err, want) {
					t.Fatalf("result %d err = %v, want %v", i, r.Err, want)
				}
			}
			st := wantData(t, s, "/r", "0")
			if st != before {
				t.Fatalf("/r stat changed by a failed multi: %+v, was %+v", st, before)
			}
			for _, p := range []string{"/r/new", "/r/x", "/r/ok", "/r/eph"} {
				wantMissing(t, s, p)
			}
		})
	}
}

func testRecursiveHelpers(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	must(t, meta.CreateRecursive(ctx, s, "/a/b/c", []byte("leaf"), meta.Persistent))
	wantData(t, s, "/a", "")
	wantData(t, s, "/a/b", "")
	wantData(t, s, "/a/b/c", "leaf")
	wantErr(t, meta.CreateRecursive(ctx, s, "/a/b/c", nil, meta.Persistent), meta.ErrNodeExists)

	must(t, meta.EnsurePath(ctx, s, "/a/b/c"))
	wantData(t, s, "/a/b/c", "leaf") // left alone
	must(t, meta.EnsurePath(ctx, s, "/x/y/z"))
	wantData(t, s, "/x/y/z", "")
	must(t, meta.EnsurePath(ctx, s, "/"))

	must(t, meta.CreateRecursive(ctx, s, "/eph/parent/node", []byte("e"), meta.Ephemeral))
	if _, st := getData(t, s, "/eph/parent/node"); st.EphemeralOwner != s.SessionID() {
		t.Fatalf("leaf not ephemeral: %+v", st)
	}
	if _, st := getData(t, s, "/eph/parent"); st.EphemeralOwner != 0 {
		t.Fatalf("parent not persistent: %+v", st)
	}

	for _, p := range []string{"/a/b/d", "/a/e/f/g", "/a/e/h"} {
		must(t, meta.CreateRecursive(ctx, s, p, nil, meta.Persistent))
	}
	must(t, meta.DeleteRecursive(ctx, s, "/a"))
	wantMissing(t, s, "/a")
	must(t, meta.DeleteRecursive(ctx, s, "/a")) // idempotent
	must(t, meta.DeleteRecursive(ctx, s, "/eph"))
	wantMissing(t, s, "/eph")
	wantData(t, s, "/x/y/z", "")
	wantErr(t, meta.CreateRecursive(ctx, s, "bad/path", nil, meta.Persistent), meta.ErrInvalidPath)
}

func testEphemeralsOnClose(t *testing.T, b backend) {
	ctx := testCtx(t)
	a, other := b.open(t), b.open(t)
	_, err := a.Create(ctx, "/eph", []byte("a"), meta.Ephemeral)
	must(t, err)
	eseq, err := a.Create(ctx, "/eseq-", nil, meta.EphemeralSequential)
	must(t, err)
	_, err = a.Create(ctx, "/keep", nil, meta.Persistent)
	must(t, err)
	ok, _, gone, err := other.ExistsW(ctx, "/eph")
	must(t, err)
	if !ok {
		t.Fatal("other session does not see /eph")
	}
	_, _, own, err := a.GetW(ctx, "/keep")
	must(t, err)
	states := a.Sessions()

	must(t, a.Close())
	waitEvent(t, gone, meta.EventNodeDeleted, "/eph")
	ev := waitEvent(t, own, meta.EventNotWatching, "/keep")
	wantErr(t, ev.Err, meta.ErrClosed)
	wantMissing(t, other, "/eph")
	wantMissing(t, other, eseq)
	wantData(t, other, "/keep", "")

	_, _, err = a.Get(ctx, "/keep")
	wantErr(t, err, meta.ErrClosed)
	select {
	case _, ok := <-states:
		if ok {
			t.Fatal("session state after Close")
		}
	case <-time.After(eventWait):
		t.Fatal("Sessions channel not closed by Close")
	}
}

func testSessionExpiry(t *testing.T, b backend) {
	ctx := testCtx(t)
	a, other := b.open(t), b.open(t)
	exp, ok := a.(meta.SessionExpirer)
	if !ok {
		t.Fatalf("%T does not implement meta.SessionExpirer", a)
	}
	states := a.Sessions()
	states2 := a.Sessions() // every subscriber sees every change
	old := a.SessionID()

	_, err := a.Create(ctx, "/reg", []byte("1"), meta.Ephemeral)
	must(t, err)
	_, err = a.Create(ctx, "/data", nil, meta.Persistent)
	must(t, err)
	_, _, own, err := a.GetW(ctx, "/data")
	must(t, err)
	_, _, gone, err := other.ExistsW(ctx, "/reg")
	must(t, err)

	must(t, exp.ExpireSession(ctx))
	waitEvent(t, gone, meta.EventNodeDeleted, "/reg")
	ev := waitEvent(t, own, meta.EventNotWatching, "/data")
	wantErr(t, ev.Err, meta.ErrSessionExpired)
	waitStates(t, states, meta.SessionExpired, meta.SessionConnected)
	waitStates(t, states2, meta.SessionExpired, meta.SessionConnected)
	id := a.SessionID()
	if id == old || id == 0 {
		t.Fatalf("session id after expiry = %x (was %x), want a new one", id, old)
	}

	// The broker's re-registration: the ephemeral comes back, owned by the
	// new session; persistent data is untouched.
	_, err = a.Create(ctx, "/reg", []byte("2"), meta.Ephemeral)
	must(t, err)
	if st := wantData(t, other, "/reg", "2"); st.EphemeralOwner != id {
		t.Fatalf("re-registered owner = %x, want %x", st.EphemeralOwner, id)
	}
	wantData(t, a, "/data", "")
}

func testElectionRace(t *testing.T, b backend) {
	ctx := testCtx(t)
	const contenders = 5
	stores := make([]meta.Store, contenders)
	for i := range stores {
		stores[i] = b.open(t)
	}
	live := slices.Clone(stores)
	for round := range 2 {
		// Every live contender watches, then all race to create.
		watches := make([]<-chan meta.Event, len(live))
		if round > 0 {
			for i, s := range live {
				ok, _, ch, err := s.ExistsW(ctx, "/controller")
				must(t, err)
				if !ok {
					t.Fatalf("round %d: /controller already gone", round)
				}
				watches[i] = ch
			}
			winner := findOwner(t, live)
			must(t, live[winner].Close())
			for i := range live {
				if i != winner {
					waitEvent(t, watches[i], meta.EventNodeDeleted, "/controller")
				}
			}
			live = slices.Delete(live, winner, winner+1)
		}
		errs := make([]error, len(live))
		var wg sync.WaitGroup
		for i, s := range live {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Create(ctx, "/controller", fmt.Appendf(nil, `{"brokerid":%d}`, i), meta.Ephemeral)
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, meta.ErrNodeExists):
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1 (errors %v)", round, wins, errs)
		}
		w := findOwner(t, live)
		if errs[w] != nil {
			t.Fatalf("round %d: /controller owned by a contender whose create failed", round)
		}
		wantData(t, live[0], "/controller", fmt.Sprintf(`{"brokerid":%d}`, w))
	}
}

// findOwner returns the index of the session owning /controller.
func findOwner(t *testing.T, stores []meta.Store) int {
	t.Helper()
	_, st := getData(t, stores[0], "/controller")
	for i, s := range stores {
		if s.SessionID() == st.EphemeralOwner {
			return i
		}
	}
	t.Fatalf("/controller owner %x is none of the contenders", st.EphemeralOwner)
	return -1
}

func testContextHonoured(t *testing.T, b backend) {
	s := b.open(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline", expired, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(tc.ctx, "/ctx", nil, meta.Persistent)
			wantErr(t, err, tc.want)
			_, _, err = s.Get(tc.ctx, "/")
			wantErr(t, err, tc.want)
			_, _, _, err = s.ChildrenW(tc.ctx, "/")
			wantErr(t, err, tc.want)
			_, err = s.Multi(tc.ctx, meta.CheckOp{Path: "/", Version: -1})
			wantErr(t, err, tc.want)
			wantMissing(t, s, "/ctx")
		})
	}
}

func testClosedStore(t *testing.T, b backend) {
	ctx := testCtx(t)
	s := b.open(t)
	must(t, s.Close())
	must(t, s.Close()) // idempotent
	_, err := s.Create(ctx, "/c", nil, meta.Persistent)
	wantErr(t, err, meta.ErrClosed)
	_, _, err = s.Get(ctx, "/")
	wantErr(t, err, meta.ErrClosed)
	_, err = s.Set(ctx, "/", nil, -1)
	wantErr(t, err, meta.ErrClosed)
	_, _, _, err = s.ExistsW(ctx, "/")
	wantErr(t, err, meta.ErrClosed)
	_, err = s.Multi(ctx, meta.CheckOp{Path: "/", Version: -1})
	wantErr(t, err, meta.ErrClosed)
	if exp, ok := s.(meta.SessionExpirer); ok {
		wantErr(t, exp.ExpireSession(ctx), meta.ErrClosed)
	}
	select {
	case _, ok := <-s.Sessions():
		if ok {
			t.Fatal("state from a closed store")
		}
	case <-time.After(eventWait):
		t.Fatal("Sessions() of a closed store is not closed")
	}
}
