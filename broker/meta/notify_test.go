package meta_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"kafgo/broker/meta"
	"kafgo/internal/testing/testwait"
)

func TestChangeListenerHandsOverEachNewNotificationOnce(t *testing.T) {
	ctx := testCtx(t)
	s := openEmbedded(t, filepath.Join(t.TempDir(), "meta.json"))
	must(t, meta.EnsurePath(ctx, s, "/changes"))
	notify := func(prefix, data string) {
		t.Helper()
		if _, err := s.Create(ctx, "/changes/"+prefix, []byte(data), meta.PersistentSequential); err != nil {
			t.Fatal(err)
		}
	}
	notify("change_", "before")
	notify("other_", "not ours")

	var mu sync.Mutex
	var got []string
	l := meta.NewChangeListener(s, "/changes", "change_", func(_ context.Context, path string, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, meta.BaseName(path)+"="+string(data))
	})
	must(t, l.SkipExisting(ctx))
	notify("change_", "first")
	notify("change_", "second")
	children, _, err := s.Children(ctx, "/changes")
	must(t, err)
	l.Apply(ctx, children)
	l.Apply(ctx, children) // already handled: nothing again
	want := []string{"change_0000000002=first", "change_0000000003=second"}
	if !slices.Equal(got, want) {
		t.Fatalf("handled %q, want %q", got, want)
	}

	// Run picks up what is written while it watches.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); l.Run(runCtx) }()
	defer func() { cancel(); <-done }()
	notify("change_", "third")
	testwait.Until(t, eventWait, "the notification written during Run", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 3
	})
	mu.Lock()
	defer mu.Unlock()
	if got[2] != "change_0000000004=third" {
		t.Fatalf("handled %q", got)
	}
}
