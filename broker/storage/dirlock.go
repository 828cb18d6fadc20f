package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// LockFileName is the lock file every log dir holds while a broker uses it
// (Kafka's ".lock", taken with FileLock.tryLock at start).
const LockFileName = ".lock"

// ErrLogDirLocked: another process (or another open manager of this
// process) holds a log dir's lock. The wrapping error names the dir and,
// when the holder wrote it, the holder's pid.
var ErrLogDirLocked = kafkaerr.Sentinel(kerr.UnknownServerError, "storage: log dir is in use by another process")

// DirLocks holds the exclusive locks of a set of log dirs. A broker takes
// them before it reads anything in the dirs (the embedded metadata store
// lives in the first one) and keeps them until it has closed every log, so
// a second broker process started on a live dir is refused at once instead
// of recovering, and truncating, files the running one has mapped.
type DirLocks struct {
	mu    sync.Mutex
	dirs  []string // absolute, in the order given
	files map[string]*os.File
}

// LockLogDirs creates each dir if needed and takes an exclusive,
// non-blocking flock on "<dir>/.lock", writing this process's pid into it so
// a refused process can name the holder. The lock belongs to the open file
// description: it ends when the returned locks are released or the process
// dies (kill -9 included), never by a stale file. If any dir cannot be
// locked, the ones already locked are released and the error names the dir.
func LockLogDirs(dirs []string) (*DirLocks, error) {
	dl := &DirLocks{files: map[string]*os.File{}}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			dl.Release()
			return nil, fmt.Errorf("storage: log dir %s: %w", d, err)
		}
		if _, dup := dl.files[abs]; dup {
			dl.Release()
			return nil, fmt.Errorf("storage: log dir %s is listed twice", abs)
		}
		f, err := lockDir(abs)
		if err != nil {
			dl.Release()
			return nil, err
		}
		dl.dirs = append(dl.dirs, abs)
		dl.files[abs] = f
	}
	return dl, nil
}

func lockDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: create log dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: open lock file of log dir %s: %w", dir, err)
	}
	if err := flockExclusive(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			holder := ""
			if pid := readLockHolder(path); pid > 0 {
				holder = fmt.Sprintf(" (held by pid %d)", pid)
			}
			return nil, fmt.Errorf("storage: log dir %s is locked by another process%s: %s is already used by a running broker: %w", dir, holder, path, ErrLogDirLocked)
		}
		return nil, fmt.Errorf("storage: lock log dir %s: %w", dir, err)
	}
	// Best effort: the pid only makes the refusal of a second process
	// more helpful; the lock itself is the flock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func readLockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// Dirs are the locked dirs, absolute, in the order given.
func (dl *DirLocks) Dirs() []string {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	return append([]string(nil), dl.dirs...)
}

// Holds reports whether dir (absolute) is locked by dl.
func (dl *DirLocks) Holds(dir string) bool {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	return dl.files[dir] != nil
}

// ReleaseDir gives up the lock of one dir (Kafka releases the lock of a
// dir that went offline). Releasing a dir not held is a no-op.
func (dl *DirLocks) ReleaseDir(dir string) error {
	dl.mu.Lock()
	f := dl.files[dir]
	delete(dl.files, dir)
	dl.mu.Unlock()
	if f == nil {
		return nil
	}
	// Closing the descriptor releases the flock; the file stays, as
	// Kafka's does.
	return f.Close()
}

// Release gives up every lock. It is safe on a nil or released DirLocks.
func (dl *DirLocks) Release() error {
	if dl == nil {
		return nil
	}
	var errs []error
	for _, d := range dl.Dirs() {
		if err := dl.ReleaseDir(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
