package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kafgo/broker/partid"
)

// A broker interrupted during start-up (Ctrl-C during log recovery) stops
// loading partitions, and leaves its directories as they were: the clean
// shutdown marker stays, and the next open loads everything.
func TestOpenManagerInterrupted(t *testing.T) {
	dir := t.TempDir()
	cfg := managerConfig(dir)
	m := openTestManager(t, cfg)
	tps := []partid.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 1}, {Topic: "b", Partition: 0}}
	for _, tp := range tps {
		l, err := m.GetOrCreateLog(tp, cfg.DefaultLog, [16]byte{})
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, l, sized(300, 1), 0)
	}
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := OpenManagerContext(ctx, cfg); !errors.Is(err, context.Canceled) {
		if m != nil {
			_ = m.Shutdown()
		}
		t.Fatalf("OpenManagerContext with an ended context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CleanShutdownFile)); err != nil {
		t.Fatalf("clean shutdown marker gone after an interrupted open: %v", err)
	}

	m = openTestManager(t, cfg)
	defer m.Shutdown()
	for _, tp := range tps {
		l, ok := m.Log(tp)
		if !ok {
			t.Fatalf("%s not loaded after the interrupted open", tp)
		}
		if leo := l.LogEndOffset(); leo != 1 {
			t.Fatalf("%s log end offset %d, want 1", tp, leo)
		}
	}
}
