package storage

import (
	"fmt"
	"os"
	"path/filepath"

	"kafgo/broker/storage/vfs"
)

// fsOrDefault is fsys, or the operating system's when nil.
func fsOrDefault(fsys vfs.FS) vfs.FS {
	if fsys == nil {
		return vfs.Default
	}
	return fsys
}

// writeFileAtomic replaces path with data so that a crash leaves either the
// old or the new content, never a mix: write a temp file, fsync it, rename it
// over the target, fsync the directory so the rename itself is durable. This
// is the protocol Kafka's CheckpointFile uses.
func writeFileAtomic(fsys vfs.FS, path string, data []byte) error {
	return writeFileAtomicSync(fsys, path, data, func() error { return syncDir(fsys, filepath.Dir(path)) })
}

// writeFileAtomicSync is writeFileAtomic with the directory fsync given
// (a log's files sync its directory through the log: syncLogDir).
func writeFileAtomicSync(fsys vfs.FS, path string, data []byte, dirSync func() error) error {
	tmp := path + tmpSuffix
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("storage: create %s: %w", tmp, err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fmt.Errorf("storage: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return fmt.Errorf("storage: fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("storage: close %s: %w", tmp, err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return fmt.Errorf("storage: rename %s: %w", tmp, err)
	}
	return dirSync()
}

// syncDir makes entries created, renamed or removed in dir durable.
func syncDir(fsys vfs.FS, dir string) error {
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("storage: fsync dir %s: %w", dir, err)
	}
	return nil
}

// readSmallFile reads a checkpoint-sized file, refusing anything larger than
// limit so a corrupt or hostile file cannot make us allocate without bound.
func readSmallFile(fsys vfs.FS, path string, limit int64) ([]byte, error) {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
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
