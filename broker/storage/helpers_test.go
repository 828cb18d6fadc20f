package storage

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// tbatch describes an uncompressed v2 batch for tests; bytes() encodes it
// with real varint records and a CRC-32C, independent of the record
// package's builder.
type tbatch struct {
	base     int64
	epoch    int32
	firstTs  int64
	tsDeltas []int64 // one per record
	keyLen   int     // -1 = null key
	valSize  int
	pid      int64
	pepoch   int16
	seq      int32
	attrs    int16
}

func plain(records, valSize int, ts int64) tbatch {
	return tbatch{firstTs: ts, tsDeltas: make([]int64, records), keyLen: -1, valSize: valSize, pid: -1, pepoch: -1, seq: -1}
}

func idem(pid int64, pepoch int16, seq int32, records int) tbatch {
	b := plain(records, 10, 1000)
	b.pid, b.pepoch, b.seq = pid, pepoch, seq
	return b
}

func (b tbatch) withDeltas(d ...int64) tbatch { b.tsDeltas = d; return b }

func (b tbatch) bytes() []byte {
	var recs []byte
	for i, d := range b.tsDeltas {
		body := []byte{0}
		body = binary.AppendVarint(body, d)
		body = binary.AppendVarint(body, int64(i))
		body = binary.AppendVarint(body, int64(b.keyLen))
		for k := 0; k < b.keyLen; k++ {
			body = append(body, 'k')
		}
		body = binary.AppendVarint(body, int64(b.valSize))
		for k := 0; k < b.valSize; k++ {
			body = append(body, byte(i+k))
		}
		body = binary.AppendVarint(body, 0)
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	out := make([]byte, record.BatchHeaderSize+len(recs))
	be := binary.BigEndian
	be.PutUint64(out[0:], uint64(b.base))
	be.PutUint32(out[8:], uint32(len(out)-record.LogOverhead))
	be.PutUint32(out[12:], uint32(b.epoch))
	out[16] = record.MagicV2
	be.PutUint16(out[21:], uint16(b.attrs))
	n := len(b.tsDeltas)
	be.PutUint32(out[23:], uint32(max(n-1, 0)))
	be.PutUint64(out[27:], uint64(b.firstTs))
	maxTs := int64(-1)
	for _, d := range b.tsDeltas {
		maxTs = max(maxTs, b.firstTs+d)
	}
	be.PutUint64(out[35:], uint64(maxTs))
	be.PutUint64(out[43:], uint64(b.pid))
	be.PutUint16(out[51:], uint16(b.pepoch))
	be.PutUint32(out[53:], uint32(b.seq))
	be.PutUint32(out[57:], uint32(n))
	copy(out[record.BatchHeaderSize:], recs)
	be.PutUint32(out[17:], record.ComputeCRC(out))
	return out
}

// sized returns a one-record batch of exactly size bytes (size >= 70).
func sized(size int, ts int64) []byte {
	for keyLen := -1; keyLen <= 2; keyLen++ {
		for vs := max(0, size-90); vs <= size; vs++ {
			b := plain(1, vs, ts)
			b.keyLen = keyLen
			if enc := b.bytes(); len(enc) == size {
				return enc
			} else if len(enc) > size {
				break
			}
		}
	}
	panic("no batch of that size")
}

func concat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(ms int64) *fakeClock { return &fakeClock{t: time.UnixMilli(ms)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func testConfig() LogConfig {
	c := DefaultLogConfig()
	c.FileDeleteDelayMs = 0
	return c
}

func partDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "topic-0")
}

func openTestLog(t testing.TB, dir string, cfg LogConfig, opt OpenOptions) *Log {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = quietLogger()
	}
	l, err := OpenLog(dir, cfg, opt)
	if err != nil {
		t.Fatalf("OpenLog(%s): %v", dir, err)
	}
	return l
}

func mustAppend(t testing.TB, l *Log, b []byte, epoch int32) AppendInfo {
	t.Helper()
	info, err := l.AppendAsLeader(b, epoch)
	if err != nil {
		t.Fatalf("AppendAsLeader: %v", err)
	}
	return info
}

// readAll reads every batch from offset from up to the log end through Read
// and ReadAt, checking the CRC of each, and returns their headers.
func readAll(t testing.TB, l *Log, from int64) []record.BatchHeader {
	t.Helper()
	var out []record.BatchHeader
	off := from
	for i := 0; i < 100000 && off < l.LogEndOffset(); i++ {
		data, err := l.ReadBytes(off, 1<<20, l.LogEndOffset())
		if err != nil {
			t.Fatalf("ReadBytes(%d): %v", off, err)
		}
		if len(data) == 0 {
			t.Fatalf("ReadBytes(%d) returned nothing below the end %d", off, l.LogEndOffset())
		}
		for _, b := range splitBatchesT(t, data) {
			h, _ := record.ParseBatchHeader(b)
			out = append(out, h)
			off = h.NextOffset()
		}
	}
	return out
}

// splitBatchesT splits data into whole batches, failing on a torn or
// corrupt one.
func splitBatchesT(t testing.TB, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for p := 0; p < len(data); {
		if len(data)-p < record.BatchHeaderSize {
			t.Fatalf("torn batch at byte %d: %d bytes left", p, len(data)-p)
		}
		h, err := record.ParseBatchHeader(data[p:])
		if err != nil {
			t.Fatalf("batch at byte %d: %v", p, err)
		}
		if h.Size() > len(data)-p {
			t.Fatalf("torn batch at byte %d: size %d, %d left", p, h.Size(), len(data)-p)
		}
		if err := record.VerifyCRC(data[p : p+h.Size()]); err != nil {
			t.Fatalf("batch at byte %d: %v", p, err)
		}
		out = append(out, data[p:p+h.Size()])
		p += h.Size()
	}
	return out
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			copyDir(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readAllUnchecked returns the raw bytes of every batch without checking
// CRCs (to observe what a log serves).
func readAllUnchecked(t testing.TB, l *Log) [][]byte {
	t.Helper()
	var out [][]byte
	for off := l.LogStartOffset(); off < l.LogEndOffset(); {
		data, err := l.ReadBytes(off, 1<<20, l.LogEndOffset())
		if err != nil || len(data) == 0 {
			t.Fatalf("ReadBytes(%d): %d bytes, %v", off, len(data), err)
		}
		for p := 0; p < len(data); {
			h, err := record.ParseBatchHeader(data[p:])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, data[p:p+h.Size()])
			p += h.Size()
			off = h.NextOffset()
		}
	}
	return out
}

func parseHeaderForBench(b []byte) (record.BatchHeader, error) { return record.ParseBatchHeader(b) }

// logSyncCounter is an FS that counts the syncs of .log files and, with
// delay, makes each take that long (a disk's fsync).
func logSyncCounter(n *atomic.Int64, delay time.Duration) vfs.FS {
	return vfs.WithErrors(vfs.Default, vfs.InjectorFunc(func(op vfs.Op) error {
		if op.Kind == vfs.OpSync && strings.HasSuffix(op.Path, logExt) {
			n.Add(1)
			if delay > 0 {
				time.Sleep(delay)
			}
		}
		return nil
	}))
}
