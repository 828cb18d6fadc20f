package dynconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kafgo/broker/meta"
)

func openStore(t *testing.T) meta.Store {
	t.Helper()
	st, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// racingStore lets a test make another write land between an update's read
// and its write: before the first Set or Create of path, once, it runs
// between.
type racingStore struct {
	meta.Store
	once    sync.Once
	between func()
}

func (r *racingStore) Set(ctx context.Context, path string, data []byte, version int32) (meta.Stat, error) {
	r.once.Do(r.between)
	return r.Store.Set(ctx, path, data, version)
}

func (r *racingStore) Create(ctx context.Context, path string, data []byte, mode meta.CreateMode) (string, error) {
	if mode != meta.PersistentSequential {
		r.once.Do(r.between)
	}
	return r.Store.Create(ctx, path, data, mode)
}

// TestUpdateKeepsAConcurrentChange: a write that lands between an update's
// read and its write (another broker's, the configs tool's) makes the
// update read again and apply its change on top: both changes stay, and
// each write posts one notification.
func TestUpdateKeepsAConcurrentChange(t *testing.T) {
	ctx := context.Background()
	for _, exists := range []bool{true, false} {
		t.Run(fmt.Sprintf("znode exists %v", exists), func(t *testing.T) {
			st := openStore(t)
			plain := Store{Meta: st}
			if exists {
				if err := plain.Update(ctx, Topics, "t", func(cfg map[string]string) error { cfg["a"] = "0"; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			calls := 0
			racing := Store{Meta: &racingStore{Store: st, between: func() {
				if err := plain.Update(ctx, Topics, "t", func(cfg map[string]string) error { cfg["other"] = "1"; return nil }); err != nil {
					t.Error(err)
				}
			}}}
			err := racing.Update(ctx, Topics, "t", func(cfg map[string]string) error {
				calls++
				cfg["mine"] = "2"
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := plain.Read(ctx, Topics, "t")
			if err != nil || got["other"] != "1" || got["mine"] != "2" {
				t.Fatalf("stored %v, %v; want both changes", got, err)
			}
			if calls != 2 {
				t.Errorf("fn called %d times, want 2 (the lost race re-reads)", calls)
			}
			notes, _, err := st.Children(ctx, ChangesPath)
			if want := 2 + map[bool]int{true: 1}[exists]; err != nil || len(notes) != want {
				t.Errorf("%d notifications (%v), want %d", len(notes), err, want)
			}
		})
	}
}

// TestUpdateConcurrently: updates from many goroutines at once each add
// their key; none is lost.
func TestUpdateConcurrently(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := Store{Meta: openStore(t)}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := s.Update(ctx, Clients, "c", func(cfg map[string]string) error {
				cfg[fmt.Sprintf("k%d", i)] = "v"
				return nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Read(ctx, Clients, "c")
	if err != nil || len(got) != n {
		t.Fatalf("stored %d keys (%v), want %d: %v", len(got), err, n, got)
	}
}

// TestUpdateRefused: an error from fn ends the update with nothing written
// and no notification.
func TestUpdateRefused(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := Store{Meta: st}
	refused := errors.New("refused")
	if err := s.Update(ctx, Brokers, DefaultEntity, func(cfg map[string]string) error { cfg["x"] = "1"; return refused }); !errors.Is(err, refused) {
		t.Fatalf("Update = %v, want the refusal", err)
	}
	if ok, _, _ := st.Exists(ctx, BrokerPath(DefaultEntity)); ok {
		t.Fatal("a refused update wrote the znode")
	}
	if ok, _, _ := st.Exists(ctx, ChangesPath); ok {
		t.Fatal("a refused update posted a notification")
	}
}

// TestUpdateNestedEntityCreatesItsParentEntity: a user's client-id entity
// is created under a user znode holding an empty config, which every
// reader of the user parses.
func TestUpdateNestedEntityCreatesItsParentEntity(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := Store{Meta: st}
	if err := s.Update(ctx, Users, "alice/clients/c1", func(cfg map[string]string) error { cfg["producer_byte_rate"] = "1024"; return nil }); err != nil {
		t.Fatal(err)
	}
	data, _, err := st.Get(ctx, Path(Users, "alice"))
	if err != nil || string(data) != `{"version":1,"config":{}}` {
		t.Fatalf("user znode %q, %v", data, err)
	}
	if got, err := s.Read(ctx, Users, "alice/clients/c1"); err != nil || got["producer_byte_rate"] != "1024" {
		t.Fatalf("client-id entity %v, %v", got, err)
	}
}

// TestChangesDispatchByType: each notification reaches the handlers
// registered for its entity type, in order; other types' handlers and
// unknown types are left alone.
func TestChangesDispatchByType(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := Store{Meta: st}
	c := NewChanges(st, nil)
	var got []string
	c.Register(Users, func(name string) { got = append(got, "quota:"+name) })
	c.Register(Users, func(name string) { got = append(got, "creds:"+name) })
	c.Register(Topics, func(name string) { got = append(got, "topic:"+name) })
	for _, n := range [][2]string{{Users, "alice"}, {Topics, "t"}, {"ips", "1.2.3.4"}} {
		if err := s.Notify(ctx, n[0], n[1]); err != nil {
			t.Fatal(err)
		}
	}
	names, _, err := st.Children(ctx, ChangesPath)
	if err != nil {
		t.Fatal(err)
	}
	c.Apply(ctx, names)
	want := []string{"quota:alice", "creds:alice", "topic:t"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dispatched %v, want %v", got, want)
	}
}
