package vfs

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func write(t *testing.T, fsys FS, name, data string) File {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(data), 0); err != nil {
		t.Fatal(err)
	}
	return f
}

func read(t *testing.T, fsys FS, name string) (string, bool) {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return string(b), true
}

// The strict in-memory FS keeps across a crash only what was synced: file
// contents at their last sync, directory entries at their directory's last
// sync, renames only once synced.
func TestMemCrashKeepsOnlyWhatWasSynced(t *testing.T) {
	m := NewMem()
	if err := m.MkdirAll("/d/p", 0o755); err != nil {
		t.Fatal(err)
	}
	m.SyncAll()

	a := write(t, m, "/d/p/a", "hello")
	a.Sync()
	a.WriteAt([]byte(" world"), 5) // not synced
	b := write(t, m, "/d/p/b", "unsynced name")
	b.Sync() // contents durable, but the name is not
	m.SyncDir("/d/p")
	c := write(t, m, "/d/p/c", "new")
	c.Sync()
	if err := m.Rename("/d/p/a", "/d/p/a2"); err != nil { // not synced: undone
		t.Fatal(err)
	}
	// A mapping's stores are durable once the mapping syncs.
	x := write(t, m, "/d/p/x", "\x00\x00\x00\x00")
	x.Sync()
	mm, err := x.Map(4)
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	mm.Store(0, []byte("ab"))
	mm.Sync()
	mm.Store(2, []byte("cd"))
	m.SyncDir("/d/p")
	if err := m.Rename("/d/p/a2", "/d/p/a"); err != nil {
		t.Fatal(err)
	}

	after := m.Crash()
	for name, want := range map[string]string{"/d/p/a2": "hello", "/d/p/b": "unsynced name", "/d/p/x": "ab\x00\x00"} {
		if got, ok := read(t, after, name); !ok || got != want {
			t.Errorf("%s after the crash: %q (exists %v), want %q", name, got, ok, want)
		}
	}
	if _, ok := read(t, after, "/d/p/a"); ok {
		t.Errorf("an unsynced rename survived")
	}
	if _, ok := read(t, after, "/d/p/c"); !ok {
		t.Errorf("a file whose directory was synced vanished")
	}
	if got, _ := read(t, m, "/d/p/a"); got != "hello world" {
		t.Errorf("the crashed FS itself changed: %q", got)
	}
}

func TestMemCrashTorn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50; i++ {
		m := NewMem()
		f := write(t, m, "/f", "durable|")
		f.Sync()
		m.SyncDir("/")
		f.WriteAt([]byte("appended"), 8)
		got, _ := read(t, m.CrashTorn(rng), "/f")
		if len(got) < 8 || got[:8] != "durable|" || len(got) > 16 {
			t.Fatalf("torn crash left %q", got)
		}
	}
}

// The counter fails exactly the n-th matching operation, then all later
// ones when sticky; a failed write leaves half its bytes, as a short write
// on a full disk does.
func TestCounterInjects(t *testing.T) {
	m := NewMem()
	c := &Counter{N: 2, Kinds: []OpKind{OpWrite}, Match: PathContains(".log"), Errno: syscall.ENOSPC}
	fsys := WithErrors(m, c)
	f, err := fsys.OpenFile("/0.log", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("1234"), 0); err != nil {
		t.Fatal(err)
	}
	g := write(t, fsys, "/other", "x") // does not match
	g.Close()
	n, err := f.WriteAt([]byte("5678"), 4)
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrInjected) || n != 2 {
		t.Fatalf("second write: %d, %v", n, err)
	}
	if _, err := f.WriteAt([]byte("9"), 8); err != nil {
		t.Fatalf("third write (not sticky): %v", err)
	}
	if got := c.Fired(); len(got) != 1 || got[0] != (Op{OpWrite, "/0.log"}) {
		t.Errorf("fired %v", got)
	}
	c2 := &Counter{N: 1, Kinds: []OpKind{OpSync}, Sticky: true}
	fsys = WithErrors(m, c2)
	f2, _ := fsys.OpenFile("/0.log", os.O_RDWR, 0)
	for i := 0; i < 3; i++ {
		if err := f2.Sync(); !errors.Is(err, syscall.EIO) {
			t.Fatalf("sync %d: %v", i, err)
		}
	}
	if err := fsys.SyncDir("/"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("sync dir after a sticky failure: %v", err)
	}
}

// On the OS a mapping outlives its file's descriptor, and its stores reach
// the file.
func TestOSMappingOutlivesClose(t *testing.T) {
	p := filepath.Join(t.TempDir(), "idx")
	f := write(t, Default, p, "\x00\x00\x00\x00\x00\x00\x00\x00")
	if OSFile(f) == nil {
		t.Fatal("no *os.File under an OS file")
	}
	mm, err := f.Map(8)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	mm.Store(2, []byte("map"))
	if err := mm.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := mm.Unmap(); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, Default, p); got != "\x00\x00map\x00\x00\x00" {
		t.Fatalf("file holds %q", got)
	}
	g, _ := Default.OpenFile(p, os.O_RDWR, 0)
	defer g.Close()
	if err := g.Allocate(0, 1<<16); err != nil {
		t.Fatal(err)
	}
	if st, _ := g.Stat(); st.Size() != 1<<16 {
		t.Fatalf("allocate did not extend: %d", st.Size())
	}
}
