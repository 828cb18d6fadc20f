package meta

import "os"

// BreakEmbeddedLog makes the next change log appends fail (write: the
// file is closed underneath) or its syncs (sync: fsync reports err), as a
// failing disk would.
func BreakEmbeddedLog(s Store, write bool, err error) {
	t := s.(*Embedded).t
	if write {
		_ = t.log.f.Close()
		return
	}
	t.log.sync = func(*os.File) error { return err }
}
