package storage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"

	"kafgo/broker/storage/vfs"
)

// Fail-stop I/O (Kafka's LogDirFailureChannel, KIP-112).
//
// The first I/O error of a write, fsync, truncate, rename, allocation, index
// or checkpoint write, or of a read, takes the whole log dir offline: every
// log in it fails every later append, flush, read, truncation and cleaning
// with ErrStorage (KAFKA_STORAGE_ERROR to clients), and the failure is
// reported once on Manager.DirFailures. Nothing is retried: after a failed
// fsync the kernel may have dropped the dirty pages and marked them clean,
// so a second fsync could succeed over lost data ("fsyncgate"); the
// recovery point never moves past what a successful sync covered, so no
// append that asked for durability (flush.messages) is acknowledged over a
// failed sync, and the next start recovers the dir from its last recovery
// point. Closing a failed log syncs nothing and writes no snapshot, and its
// dir gets no clean-shutdown marker.
//
// Errors that say the process, not the disk, is short of something
// (EMFILE, ENFILE, ENOMEM) fail the operation with ErrStorage but do not
// take the dir offline: nothing was written or synced, so nothing is lost
// by trying again later. A missing file is not a disk failure either (a
// segment removed by retention while a reader reopens it).

// DirFailure is a log dir that went offline: the dir (absolute) and its
// first I/O error.
type DirFailure struct {
	Dir string
	Err error
}

// dirHealth is the health of one log dir, shared by every log in it.
type dirHealth struct {
	dir    string
	err    atomic.Pointer[error]
	report func(DirFailure) // told once, on the first failure; may be nil
	logged atomic.Bool      // the failure was logged
}

func newDirHealth(dir string, report func(DirFailure)) *dirHealth {
	return &dirHealth{dir: dir, report: report}
}

// failure is the dir's first I/O error, nil while it is healthy.
func (h *dirHealth) failure() error {
	if p := h.err.Load(); p != nil {
		return *p
	}
	return nil
}

// check is nil while the dir is healthy, else its failure as ErrStorage.
// A nil dirHealth is always healthy.
func (h *dirHealth) check() error {
	if h == nil {
		return nil
	}
	if cause := h.failure(); cause != nil {
		return fmt.Errorf("storage: log dir %s is offline: %w: %w", h.dir, ErrStorage, cause)
	}
	return nil
}

// fail records cause as the dir's failure; only the first is kept and
// reported. It reports whether this call took the dir offline.
func (h *dirHealth) fail(cause error) bool {
	if !h.err.CompareAndSwap(nil, &cause) {
		return false
	}
	if h.report != nil {
		h.report(DirFailure{Dir: h.dir, Err: cause})
	}
	return true
}

// isDiskFailure reports whether err came from the file system and says the
// disk (not the process, not the caller) failed.
func isDiskFailure(err error) bool {
	if err == nil || errors.Is(err, ErrStorage) {
		return false
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrClosed) || isResourceShortage(err) {
		return false
	}
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) ||
		errors.Is(err, io.ErrShortWrite) || errors.Is(err, vfs.ErrInjected)
}

// isResourceShortage: the process ran out of descriptors or memory.
func isResourceShortage(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM)
}

// Err is the log's sticky failure: nil while its dir is healthy, else an
// error wrapping ErrStorage and the dir's first I/O error.
func (l *Log) Err() error {
	if cause := l.health.failure(); cause != nil {
		return fmt.Errorf("storage: %s: log dir %s is offline after an I/O error: %w: %w", l.tp, l.health.dir, ErrStorage, cause)
	}
	return nil
}

// fail handles an error of a log operation: a disk failure takes the dir
// offline (once) and wakes every append waiting on a sync, and the
// operation returns ErrStorage; a shortage of descriptors or memory fails
// only this operation, also as ErrStorage; anything else is returned as
// it is.
func (l *Log) fail(err error) error {
	switch {
	case err == nil || errors.Is(err, ErrStorage):
		return err
	case isDiskFailure(err):
		l.health.fail(err)
		if l.health.logged.CompareAndSwap(false, true) {
			l.logger.Error("storage: I/O error; the log dir goes offline and nothing in it is written, synced or read again until a restart", "dir", l.health.dir, "err", err)
		}
		l.gcMu.Lock()
		l.gcCond.Broadcast()
		l.gcMu.Unlock()
		return fmt.Errorf("storage: %s: %w: %w", l.tp, ErrStorage, err)
	case isResourceShortage(err):
		return fmt.Errorf("storage: %s: %w: %w", l.tp, ErrStorage, err)
	}
	return err
}

// syncLogDir fsyncs the partition directory. The log's directory syncs run
// one at a time and a failed one is recorded before the next may start, so
// no sync of the directory follows a failed one (see segment.flush).
func (l *Log) syncLogDir() error {
	l.dirSyncMu.Lock()
	defer l.dirSyncMu.Unlock()
	if err := l.health.check(); err != nil {
		return err
	}
	err := syncDir(l.fs, l.dir)
	if isDiskFailure(err) {
		l.health.fail(err)
	}
	return err
}
