package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// writeFileAtomic replaces path with data so that a crash leaves either the
// old or the new content, never a mix: write a temp file, fsync it, rename it
// over the target, fsync the directory so the rename itself is durable. This
// is the protocol Kafka's CheckpointFile uses.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("storage: create %s: %w", tmp, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("storage: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("storage: fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("storage: close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("storage: rename %s: %w", tmp, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes entries created, renamed or removed in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storage: open dir %s: %w", dir, err)
	}
	err = d.Sync()
	cerr := d.Close()
	// Some filesystems refuse fsync on a directory; there is nothing more
	// a process can do there, so that is not an error.
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("storage: fsync dir %s: %w", dir, err)
	}
	if cerr != nil {
		return fmt.Errorf("storage: close dir %s: %w", dir, cerr)
	}
	return nil
}

// readSmallFile reads a checkpoint-sized file, refusing anything larger than
// limit so a corrupt or hostile file cannot make us allocate without bound.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("storage: stat %s: %w", path, err)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("storage: %s: %d bytes exceeds the %d-byte limit: %w", path, st.Size(), limit, ErrCorruptFile)
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, fmt.Errorf("storage: read %s: %w", path, err)
	}
	return buf, nil
}
