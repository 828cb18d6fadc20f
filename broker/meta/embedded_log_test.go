package meta_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"kafgo/broker/meta"
)

// crashCopy copies the store's files as a crash would leave them (the
// store still open: no final snapshot) to a new directory and returns the
// new store path.
func crashCopy(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "meta.json")
	for _, suffix := range []string{"", ".log"} {
		b, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			continue
		}
		must(t, err)
		must(t, os.WriteFile(dst+suffix, b, 0o644))
	}
	return dst
}

// TestEmbeddedReplaysChangeLogAfterCrash: changes since the snapshot live
// in the change log; a store that was never closed (a crash) opens with
// all of them, stats included, and without the ephemerals.
func TestEmbeddedReplaysChangeLogAfterCrash(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	_, err := s.Create(ctx, "/brokers", nil, meta.Persistent)
	must(t, err)
	_, err = s.Create(ctx, "/brokers/topics", []byte(`{"v":1}`), meta.Persistent)
	must(t, err)
	_, err = s.Set(ctx, "/brokers/topics", []byte(`{"v":2}`), 0)
	must(t, err)
	_, err = s.Create(ctx, "/brokers/gone", nil, meta.Persistent)
	must(t, err)
	must(t, s.Delete(ctx, "/brokers/gone", 0))
	_, err = s.Create(ctx, "/brokers/eph", nil, meta.Ephemeral)
	must(t, err)
	_, err = s.Multi(ctx, meta.CreateOp{Path: "/x", Data: []byte("x"), Mode: meta.Persistent}, meta.CreateOp{Path: "/x/y", Mode: meta.Persistent})
	must(t, err)
	_, want := getData(t, s, "/brokers")
	_, wantTopics := getData(t, s, "/brokers/topics")

	r := openEmbedded(t, crashCopy(t, path))
	if st := wantData(t, r, "/brokers/topics", `{"v":2}`); st != wantTopics {
		t.Fatalf("stat after replay %+v, want %+v", st, wantTopics)
	}
	wantMissing(t, r, "/brokers/gone")
	wantMissing(t, r, "/brokers/eph")
	wantData(t, r, "/x/y", "")
	// The ephemeral's parent keeps the create it counted; the ephemeral
	// itself is gone (no session survives), so one child less shows.
	if _, st := getData(t, r, "/brokers"); st.Pzxid != want.Pzxid || st.NumChildren != want.NumChildren-1 {
		t.Fatalf("/brokers after replay %+v, before %+v", st, want)
	}
}

// TestEmbeddedCutsTornTail: a crash mid-append leaves part of a record (or
// zeros) after the last whole one; the store opens with everything before
// it and goes on appending. A damaged record followed by good ones is
// corruption, refused.
func TestEmbeddedCutsTornTail(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	for i := range 3 {
		_, err := s.Create(ctx, fmt.Sprintf("/n%d", i), []byte("data"), meta.Persistent)
		must(t, err)
	}
	crashed := crashCopy(t, path)
	good, err := os.ReadFile(crashed + ".log")
	must(t, err)
	for name, tail := range map[string][]byte{
		"half a record": good[:len(good)/3],
		"zeros":         make([]byte, 100),
		"a header only": {0, 0, 0, 50, 1, 2, 3, 4},
	} {
		t.Run(name, func(t *testing.T) {
			p := crashCopy(t, crashed)
			must(t, os.WriteFile(p+".log", append(bytes.Clone(good), tail...), 0o644))
			r := openEmbedded(t, p)
			wantData(t, r, "/n2", "data")
			_, err := r.Create(ctx, "/after", nil, meta.Persistent)
			must(t, err)
			r2 := openEmbedded(t, crashCopy(t, p))
			wantData(t, r2, "/after", "")
		})
	}
	t.Run("damage before good records", func(t *testing.T) {
		p := crashCopy(t, crashed)
		bad := bytes.Clone(good)
		bad[12] ^= 0xff // inside the first record's payload
		must(t, os.WriteFile(p+".log", bad, 0o644))
		if _, err := meta.OpenEmbedded(p, quietLogger()); err == nil {
			t.Fatal("opened a change log with a damaged record in the middle")
		} else {
			wantErr(t, err, meta.ErrCorrupt)
		}
	})
}

// TestEmbeddedFoldsLogIntoSnapshot: past the snapshot's size the log is
// folded into a new snapshot and emptied; records the snapshot already
// holds (a crash between the two steps) are skipped when replayed.
func TestEmbeddedFoldsLogIntoSnapshot(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	big := bytes.Repeat([]byte("v"), 64<<10)
	var oldLog []byte
	for i := 0; ; i++ {
		_, err := s.Create(ctx, fmt.Sprintf("/n%03d", i), big, meta.Persistent)
		must(t, err)
		fi, err := os.Stat(path)
		if err == nil && fi.Size() > 0 {
			break // folded
		}
		if oldLog, err = os.ReadFile(path + ".log"); err != nil {
			t.Fatal(err)
		}
		if i > 100 {
			t.Fatal("the change log was never folded into a snapshot")
		}
	}
	if fi, err := os.Stat(path + ".log"); err != nil || fi.Size() != 0 {
		t.Fatalf("change log after folding: %v, %v bytes", err, fi.Size())
	}
	// A crash right after the snapshot, before the log was emptied: the
	// old records are all in the snapshot.
	p := crashCopy(t, path)
	must(t, os.WriteFile(p+".log", oldLog, 0o644))
	r := openEmbedded(t, p)
	wantData(t, r, "/n000", string(big))
	kids, _, err := r.Children(ctx, "/")
	must(t, err)
	if len(kids) < 16 {
		t.Fatalf("%d znodes after reopening", len(kids))
	}
}

// TestEmbeddedGroupCommit: concurrent writers all return durable changes
// (a crash copy holds each one).
func TestEmbeddedGroupCommit(t *testing.T) {
	ctx := testCtx(t)
	path := filepath.Join(t.TempDir(), "meta.json")
	s := openEmbedded(t, path)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if _, err := s.Create(ctx, fmt.Sprintf("/g%d-%d", g, i), nil, meta.Persistent); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	r := openEmbedded(t, crashCopy(t, path))
	kids, _, err := r.Children(ctx, "/")
	must(t, err)
	if len(kids) != 400 {
		t.Fatalf("%d znodes after a crash, want 400", len(kids))
	}
}

// BenchmarkEmbeddedCreate creates znodes one by one into a store that
// already holds n: with the change log the cost of a write does not grow
// with the tree.
func BenchmarkEmbeddedCreate(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := b.Context()
			s, err := meta.OpenEmbedded(filepath.Join(b.TempDir(), "meta.json"), quietLogger())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			data := bytes.Repeat([]byte("x"), 100)
			ops := make([]meta.Op, 0, n)
			for i := range n {
				ops = append(ops, meta.CreateOp{Path: fmt.Sprintf("/pre%d", i), Data: data, Mode: meta.Persistent})
			}
			if _, err := s.Multi(ctx, ops...); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Create(ctx, fmt.Sprintf("/n%d", i), data, meta.Persistent); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
