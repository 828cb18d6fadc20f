package meta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
)

// The embedded store's change log, <file>.log: every committed transaction
// since the last snapshot (<file>), appended and made durable with one
// fdatasync shared by the transactions that committed meanwhile (group
// commit), as ZooKeeper's own transaction log and snapshots. A write costs
// what it changes, not the size of the whole tree: creating ten thousand
// partitions writes ten thousand small records instead of rewriting a file
// that grows with each of them.
//
// Record framing (big endian):
//
//	length uint32   bytes of payload
//	crc32c uint32   CRC-32C (Castagnoli) of payload
//	payload         {"zxid":<n>,"put":[<node>...],"del":["<path>"...]}
//
// A node is the snapshot's node object (path, stats, data): the state of
// every persistent znode the transaction created or changed, parents whose
// child counters moved included, and the paths it deleted. Replaying a
// record sets those nodes to the recorded state, so replay needs no
// knowledge of the operations. Records whose zxid the snapshot already
// holds are skipped: a crash between writing a snapshot and emptying the
// log leaves them behind.
//
// A torn last record (a crash mid-append: the length runs past the end of
// the file, or the tail after a bad record is all zeros) was never
// acknowledged and is cut off at open. A bad record followed by more data
// is corruption, and the store refuses to open, as for a bad snapshot.
//
// The log is folded into a new snapshot when it grows past the snapshot's
// size (at least snapshotMinLog), and when the last session closes.

const (
	recordHeader   = 8
	snapshotMinLog = 1 << 20
	maxRecord      = 256 << 20
)

type logRecord struct {
	Zxid int64      `json:"zxid"`
	Put  []fileNode `json:"put,omitempty"`
	Del  []string   `json:"del,omitempty"`
}

// changeLog is the open <file>.log with its group commit.
type changeLog struct {
	f    *os.File
	size int64 // bytes appended since the last snapshot (writers hold the tree)

	// appended counts records written to the file; synced those known
	// durable. A writer appends under the tree's semaphore, then waits,
	// without it, until a sync covers its record.
	appended atomic.Uint64
	mu       sync.Mutex
	cond     sync.Cond
	synced   uint64
	syncing  bool
	err      error // the first failed write or sync: the log is dead
	// sync is the durability barrier, a variable for fault tests.
	sync func(*os.File) error
}

func openChangeLog(path string) (*changeLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &changeLog{f: f, size: st.Size(), sync: dataSync}
	l.cond.L = &l.mu
	return l, nil
}

// append writes one record (tree held) and returns its sequence number.
func (l *changeLog) append(payload []byte) (uint64, error) {
	if err := l.failed(); err != nil {
		return 0, err
	}
	buf := make([]byte, recordHeader, recordHeader+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(len(payload)))
	binary.BigEndian.PutUint32(buf[4:], crc32.Checksum(payload, castagnoli))
	buf = append(buf, payload...)
	if _, err := l.f.Write(buf); err != nil {
		l.fail(err)
		return 0, err
	}
	l.size += int64(len(buf))
	return l.appended.Add(1), nil
}

func (l *changeLog) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *changeLog) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.cond.Broadcast()
	l.mu.Unlock()
}

// waitSynced returns once record seq is durable: the first waiter syncs
// for every record appended so far, the others wait for it.
func (l *changeLog) waitSynced(seq uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.synced < seq {
		if l.err != nil {
			return l.err
		}
		if l.syncing {
			l.cond.Wait()
			continue
		}
		l.syncing = true
		target := l.appended.Load()
		l.mu.Unlock()
		err := l.sync(l.f)
		l.mu.Lock()
		l.syncing = false
		if err != nil && l.err == nil {
			// Never retried: after a failed fsync the kernel may have
			// dropped the pages, and a second fsync would report success.
			l.err = fmt.Errorf("fsync: %w", err)
		} else if err == nil && target > l.synced {
			l.synced = target
		}
		l.cond.Broadcast()
	}
	return nil
}

// reset empties the log once a snapshot holds everything in it (tree
// held, every record synced).
func (l *changeLog) reset() error {
	if err := l.f.Truncate(0); err != nil {
		l.fail(err)
		return err
	}
	if err := l.sync(l.f); err != nil {
		l.fail(err)
		return err
	}
	l.size = 0
	return nil
}

func (l *changeLog) close() error { return l.f.Close() }

func dataSync(f *os.File) error { return f.Sync() }

// readChangeLog returns the records of path in order, and the length of
// its valid prefix (a torn tail beyond it is to be cut off). A missing
// file has no records.
func readChangeLog(path string) (recs []logRecord, valid int64, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var off int64
	for off < int64(len(b)) {
		rest := b[off:]
		bad := func(why string) error {
			if torn(rest) {
				return nil
			}
			return fmt.Errorf("%w: record at byte %d: %s, with more data after it", ErrCorrupt, off, why)
		}
		if len(rest) < recordHeader {
			return recs, off, bad("truncated header")
		}
		n := binary.BigEndian.Uint32(rest)
		if n == 0 {
			return recs, off, bad("length 0")
		}
		if n > maxRecord || int64(n) > int64(len(rest)-recordHeader) {
			if int64(n) > int64(len(rest)-recordHeader) && n <= maxRecord {
				return recs, off, nil // the length runs past the end: torn
			}
			return recs, off, bad(fmt.Sprintf("length %d", n))
		}
		payload := rest[recordHeader : recordHeader+int(n)]
		if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(rest[4:]) {
			if torn(rest[recordHeader+int(n):]) {
				return recs, off, nil
			}
			return recs, off, bad("crc32c mismatch")
		}
		var r logRecord
		dec := json.NewDecoder(bytes.NewReader(payload))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return recs, off, fmt.Errorf("%w: record at byte %d: %v", ErrCorrupt, off, err)
		}
		recs = append(recs, r)
		off += recordHeader + int64(n)
	}
	return recs, off, nil
}

// torn reports whether b, what follows a bad record, holds nothing but
// zeros: what a crash mid-append leaves (the file grew, the data did not
// arrive), as opposed to valid records after a damaged one.
func torn(b []byte) bool {
	return bytes.IndexFunc(b, func(r rune) bool { return r != 0 }) < 0
}

// cutTail truncates the log to its valid prefix.
func cutTail(path string, valid int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(valid); err != nil {
		return err
	}
	return f.Sync()
}
