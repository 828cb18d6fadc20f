package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log dir held by one manager cannot be opened by another (flock is per
// open file description, so this holds within one process as between
// two); the refusal names the dir and the holder's pid, and reads nothing:
// a partition directory in the locked dir is not recovered. Once the
// holder shuts down, the dir opens again.
func TestLogDirLock(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	m := openTestManager(t, managerConfig(d1, d2))
	if _, err := os.Stat(filepath.Join(d2, LockFileName)); err != nil {
		t.Fatalf("no %s in %s: %v", LockFileName, d2, err)
	}
	for _, dirs := range [][]string{{d2}, {filepath.Join(root, "c"), d2}} {
		m2, err := OpenManager(managerConfig(dirs...))
		if !errors.Is(err, ErrLogDirLocked) {
			if m2 != nil {
				m2.Shutdown()
			}
			t.Fatalf("second manager on %v: %v, want ErrLogDirLocked", dirs, err)
		}
		if !strings.Contains(err.Error(), d2) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("refusal does not name the dir and the holder: %v", err)
		}
	}
	// The refused manager released the dir it had locked before failing.
	if dl, err := LockLogDirs([]string{filepath.Join(root, "c")}); err != nil {
		t.Fatalf("a dir locked by a refused open stayed locked: %v", err)
	} else {
		dl.Release()
	}
	if _, err := LockLogDirs([]string{filepath.Join(root, "c"), filepath.Join(root, "c")}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a dir listed twice: %v", err)
	}
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	m3 := openTestManager(t, managerConfig(d1, d2))
	m3.Shutdown()

	// Locks taken by the caller (the broker, before its metadata store):
	// the manager uses them and leaves them held after Shutdown.
	dl, err := LockLogDirs([]string{d1})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Release()
	cfg := managerConfig(d1)
	cfg.Locks = dl
	m4 := openTestManager(t, cfg)
	m4.Shutdown()
	if _, err := LockLogDirs([]string{d1}); !errors.Is(err, ErrLogDirLocked) {
		t.Errorf("the caller's lock was released by the manager: %v", err)
	}
	cfg = managerConfig(d1, d2)
	cfg.Locks = dl
	if m5, err := OpenManager(cfg); err == nil || !strings.Contains(err.Error(), "not locked") {
		if m5 != nil {
			m5.Shutdown()
		}
		t.Errorf("a dir the given locks do not hold: %v", err)
	}
}
