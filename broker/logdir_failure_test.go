package broker

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/storage"
	"kafgo/internal/testing/testlog"
	"kafgo/internal/testing/testwait"
)

// The broker halts (exit 1) when its last log dir fails, as Kafka's does,
// and not before.
func TestBrokerHaltsWhenEveryLogDirFailed(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	m, err := storage.OpenManager(storage.ManagerConfig{LogDirs: []string{d1, d2}, BrokerID: 1, DefaultLog: storage.DefaultLogConfig(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	halted := make(chan int, 1)
	defer func(orig func(int)) { haltProcess = orig }(haltProcess)
	haltProcess = func(code int) { halted <- code }
	var out testlog.Buffer
	b := &Broker{log: slog.New(slog.NewTextHandler(&out, nil)), logs: m}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); b.watchLogDirs(ctx) }()

	m.FailDir(d1, errors.New("disk 1 gone"))
	testwait.For(t, 10*time.Second, "the first failure handled", func() (bool, string) {
		return strings.Contains(out.String(), "disk 1 gone"), out.String()
	})
	select {
	case code := <-halted:
		t.Fatalf("halted (%d) with a live dir left", code)
	default:
	}
	m.FailDir(d2, errors.New("disk 2 gone"))
	select {
	case code := <-halted:
		if code != 1 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no halt after every log dir failed")
	}
	<-done
}
