package dumplog

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// The golden segment files under testdata/dumplog/segments are written by
// generateSegments when the tests run with -update, and are committed so
// that anyone can run Kafka's own kafka-dump-log.sh on them and compare.
// Everything is deterministic: fixed timestamps, a fixed clock, no
// randomness. The .log, .index, .timeindex and .snapshot files come from
// the broker's own storage (OpenLog + AppendAsLeader); the corrupt and
// legacy files are derived or hand-built from bytes.

// baseTime is the fixed clock and the first record timestamp.
const baseTime int64 = 1700000000000

const segName = "00000000000000000000"

// rec is one record of a test batch.
type rec struct {
	ts         int64
	key, value []byte
	headers    []record.Header
}

func r(ts int64, key, value string) rec {
	var k, v []byte
	if key != "" {
		k = []byte(key)
	}
	if value != "" {
		v = []byte(value)
	}
	return rec{ts: ts, key: k, value: v}
}

// batchSpec is a test batch: codec, producer and flags, and its records.
type batchSpec struct {
	codec         record.Codec
	pid           int64
	pepoch        int16
	seq           int32
	transactional bool
	logAppendTime int64 // 0: CreateTime
	recs          []rec
}

func (b batchSpec) build() ([]byte, error) {
	bl := record.NewBuilder(0, b.codec)
	if b.pid > 0 {
		bl.SetProducer(b.pid, b.pepoch, b.seq)
	}
	bl.SetTransactional(b.transactional)
	if b.logAppendTime != 0 {
		bl.SetLogAppendTime(b.logAppendTime)
	}
	for _, x := range b.recs {
		bl.Append(x.ts, x.key, x.value, x.headers)
	}
	return bl.Build()
}

// step is one thing done to a test log: append batches (as one append
// each), append a transaction marker, or roll.
type step struct {
	batch  *batchSpec
	marker *marker
	roll   bool
}

// marker is a transaction marker a test log gets.
type marker struct {
	pid   int64
	epoch int16
	typ   record.ControlType
	ts    int64
}

// goldenLogConfig is the storage configuration of the golden logs: sparse
// but non-empty indexes for small files, and small preallocated index files
// for the ones copied while open.
func goldenLogConfig() storage.LogConfig {
	cfg := storage.DefaultLogConfig()
	cfg.IndexIntervalBytes = 150
	cfg.SegmentIndexBytes = 1024
	return cfg
}

// runSteps opens a partition directory dir (named <topic>-<partition>)
// with the broker's storage, does steps as leader in epoch and returns the
// log still open.
func runSteps(dir string, cfg storage.LogConfig, epoch int32, steps []step) (*storage.Log, error) {
	l, err := storage.OpenLog(dir, cfg, storage.OpenOptions{
		Clock:  func() time.Time { return time.UnixMilli(baseTime + 60000) },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		var b []byte
		switch {
		case s.roll:
			err = l.Roll()
		case s.marker != nil:
			b, err = record.BuildEndTxnMarker(0, s.marker.pid, s.marker.epoch, s.marker.typ, 0, s.marker.ts)
		default:
			b, err = s.batch.build()
		}
		if err == nil && b != nil {
			_, err = l.AppendAsLeader(b, epoch)
		}
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
	}
	return l, nil
}

// writeLog builds a partition directory with the broker's storage and
// returns it closed.
func writeLog(dir string, epoch int32, steps []step) error {
	l, err := runSteps(dir, goldenLogConfig(), epoch, steps)
	if err != nil {
		return err
	}
	return l.Close()
}

// copyOpenLog builds a partition directory and copies its segment files to
// to while the log is open, as an operator dumping a running broker's
// active segment finds them: indexes preallocated with a zero tail.
func copyOpenLog(dir, to string, epoch int32, steps []step) error {
	l, err := runSteps(dir, goldenLogConfig(), epoch, steps)
	if err != nil {
		return err
	}
	err = copySegmentFiles(dir, to)
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

func batchStep(b batchSpec) step { return step{batch: &b} }

func markerStep(pid int64, epoch int16, typ record.ControlType, ts int64) step {
	return step{marker: &marker{pid, epoch, typ, ts}}
}

// plainSteps is the "plain" log: every codec, headers, a tombstone, a
// LogAppendTime batch, an idempotent producer, a committed transaction,
// and a roll so that the second segment has a non-zero base offset.
func plainSteps() []step {
	t := baseTime
	hdrs := []record.Header{{Key: "trace", Value: []byte("abc")}, {Key: "span", Value: nil}}
	withHeaders := r(t+3, "k2", "with headers")
	withHeaders.headers = hdrs
	return []step{
		batchStep(batchSpec{recs: []rec{r(t, "", "hello"), r(t+1, "", "world")}}),
		batchStep(batchSpec{recs: []rec{r(t+2, "k1", "keyed"), withHeaders, r(t+4, "k3", "")}}),
		batchStep(batchSpec{codec: record.CodecGzip, recs: []rec{r(t+10, "g1", "gzip one"), r(t+11, "g2", "gzip two")}}),
		batchStep(batchSpec{codec: record.CodecSnappy, recs: []rec{r(t+20, "s1", "snappy one"), r(t+21, "s2", "snappy two")}}),
		batchStep(batchSpec{codec: record.CodecLZ4, recs: []rec{r(t+30, "l1", "lz4 one"), r(t+31, "l2", "lz4 two")}}),
		batchStep(batchSpec{codec: record.CodecZstd, recs: []rec{r(t+40, "z1", "zstd one"), r(t+41, "z2", "zstd two")}}),
		batchStep(batchSpec{logAppendTime: t + 50, recs: []rec{r(t+45, "a1", "appended"), r(t+46, "a2", "at log time")}}),
		{roll: true},
		batchStep(batchSpec{pid: 1000, seq: 0, recs: []rec{r(t+60, "i1", "idem 0"), r(t+61, "i2", "idem 1"), r(t+62, "i3", "idem 2")}}),
		batchStep(batchSpec{pid: 1000, seq: 3, codec: record.CodecGzip, recs: []rec{r(t+63, "i4", "idem 3"), r(t+64, "i5", "idem 4")}}),
		batchStep(batchSpec{pid: 2000, pepoch: 1, seq: 0, transactional: true, recs: []rec{r(t+70, "tx", "in a transaction")}}),
		markerStep(2000, 1, record.ControlCommit, t+71),
		batchStep(batchSpec{recs: []rec{r(t+80, "last", "record")}}),
	}
}

// offsetsSteps is a __consumer_offsets log with every key and value
// version, consumer and non-consumer groups, tombstones, a compressed
// batch, a transactional commit with its marker and an unknown key version.
func offsetsSteps() ([]step, error) {
	t := baseTime
	type kv struct{ key, value []byte }
	var firstErr error
	must := func(b []byte, err error) []byte {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return b
	}
	commit := func(key offsetsrec.Key, v *offsetsrec.OffsetValue) kv {
		var val []byte
		if v != nil {
			val = must(v.AppendTo(nil))
		}
		return kv{must(key.AppendTo(nil)), val}
	}
	group := func(name string, g *offsetsrec.GroupValue) kv {
		var val []byte
		if g != nil {
			val = must(g.AppendTo(nil))
		}
		return kv{must(offsetsrec.GroupKey(name).AppendTo(nil)), val}
	}
	assign := func(userData []byte, topics ...kmsg.ConsumerMemberAssignmentTopic) []byte {
		a := kmsg.NewConsumerMemberAssignment()
		a.Version = 1
		a.Topics = topics
		a.UserData = userData
		return a.AppendTo(nil)
	}
	sp := func(s string) *string { return &s }
	v0key := offsetsrec.OffsetKey("old-group", "orders", 1)
	v0key.Version = offsetsrec.KeyOffsetV0
	records := []kv{
		commit(offsetsrec.OffsetKey("g", "orders", 0), &offsetsrec.OffsetValue{Version: 3, Offset: 42, LeaderEpoch: 5, CommitTimestamp: t}),
		commit(offsetsrec.OffsetKey("g", "orders", 1), &offsetsrec.OffsetValue{Version: 3, Offset: 7, LeaderEpoch: -1, Metadata: "checkpoint 7", CommitTimestamp: t}),
		commit(offsetsrec.OffsetKey("g", "payments", 0), &offsetsrec.OffsetValue{Version: 1, Offset: 100, Metadata: "m", CommitTimestamp: t, ExpireTimestamp: t + 86400000}),
		commit(offsetsrec.OffsetKey("g", "payments", 1), &offsetsrec.OffsetValue{Version: 2, Offset: 101, CommitTimestamp: t}),
		commit(v0key, &offsetsrec.OffsetValue{Version: 0, Offset: 5, Metadata: "", CommitTimestamp: t}),
		group("g", &offsetsrec.GroupValue{Version: 3, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"),
			CurrentStateTimestamp: t, Members: []offsetsrec.MemberValue{
				{MemberID: "m1", ClientID: "c1", ClientHost: "/10.0.0.1", RebalanceTimeout: 300000, SessionTimeout: 10000,
					Assignment: assign(nil, kmsg.ConsumerMemberAssignmentTopic{Topic: "orders", Partitions: []int32{0, 1}})},
				{MemberID: "m2", GroupInstanceID: sp("static-2"), ClientID: "c2", ClientHost: "/10.0.0.2", RebalanceTimeout: 300000, SessionTimeout: 10000,
					Assignment: assign([]byte{0x00, 0x0a, 0xff}, kmsg.ConsumerMemberAssignmentTopic{Topic: "payments", Partitions: []int32{0, 1}}, kmsg.ConsumerMemberAssignmentTopic{Topic: "orders", Partitions: nil})},
			}}),
		group("connect-cluster", &offsetsrec.GroupValue{Version: 0, ProtocolType: "connect", Generation: 9, Protocol: sp("sessioned"), Leader: sp("w1"),
			Members: []offsetsrec.MemberValue{{MemberID: "w1", ClientID: "c", ClientHost: "/h", SessionTimeout: 10000, Assignment: []byte{0, 1, 0xab}}}}),
		group("idle", &offsetsrec.GroupValue{Version: 2, ProtocolType: "consumer", Generation: 4, CurrentStateTimestamp: t}),
		commit(offsetsrec.OffsetKey("g", "orders", 2), nil),
		group("gone", nil),
	}
	if firstErr != nil {
		return nil, firstErr
	}
	batchOf := func(codec record.Codec, ts int64, kvs ...kv) step {
		b := batchSpec{codec: codec}
		for i, x := range kvs {
			b.recs = append(b.recs, rec{ts: ts + int64(i), key: x.key, value: x.value})
		}
		return batchStep(b)
	}
	unknown := kv{key: []byte{0, 9, 0, 1, 'x'}, value: []byte{0, 0}}
	return []step{
		batchOf(record.CodecNone, t, records[0], records[1]),
		batchOf(record.CodecGzip, t+10, records[2], records[3], records[4]),
		batchOf(record.CodecNone, t+20, records[5]),
		batchOf(record.CodecNone, t+30, records[6], records[7]),
		{batch: &batchSpec{pid: 3000, seq: 0, transactional: true, recs: []rec{{ts: t + 40, key: records[0].key, value: must(offsetsrec.OffsetValue{Version: 3, Offset: 43, LeaderEpoch: 5, CommitTimestamp: t + 40}.AppendTo(nil))}}}},
		markerStep(3000, 0, record.ControlCommit, t+41),
		batchOf(record.CodecNone, t+50, records[8], records[9], unknown),
	}, firstErr
}

// legacyLog hand-builds a message set of magic 0 and 1 messages, plain and
// compressed, followed by a v2 batch (a log written before and after a
// message format upgrade).
func legacyLog() ([]byte, error) {
	t := baseTime
	var out []byte
	out = append(out, legacyMessage(0, 0, 0, 0, nil, []byte("magic zero"))...)
	out = append(out, legacyMessage(1, 1, 0, t, []byte("k1"), []byte("magic one"))...)
	inner1 := concatBytes(
		legacyMessage(0, 1, 0, t+1, []byte("c1"), []byte("inner one")),
		legacyMessage(1, 1, 0, t+2, nil, []byte("inner two")),
		legacyMessage(2, 1, 0, t+3, []byte("c3"), nil))
	z, err := gzipBytes(inner1)
	if err != nil {
		return nil, err
	}
	// Magic 1 wrapper: inner offsets relative, the wrapper's is the last's.
	out = append(out, legacyMessage(4, 1, byte(record.CodecGzip), t+3, nil, z)...)
	inner0 := concatBytes(
		legacyMessage(5, 0, 0, 0, []byte("z5"), []byte("zero inner five")),
		legacyMessage(6, 0, 0, 0, []byte("z6"), []byte("zero inner six")))
	if z, err = gzipBytes(inner0); err != nil {
		return nil, err
	}
	out = append(out, legacyMessage(6, 0, byte(record.CodecGzip), 0, nil, z)...)
	inner2 := concatBytes(legacyMessage(0, 1, 0, t+4, nil, []byte("log append time")))
	if z, err = gzipBytes(inner2); err != nil {
		return nil, err
	}
	out = append(out, legacyMessage(7, 1, byte(record.CodecGzip)|record.AttrTimestampType, t+99, nil, z)...)
	b := record.NewBuilder(8, record.CodecNone)
	b.SetPartitionLeaderEpoch(0)
	b.Append(t+100, nil, []byte("after the upgrade"), nil)
	b.Append(t+101, []byte("k"), []byte("v2"), nil)
	return b.AppendTo(out)
}

// legacyMessage encodes a magic 0/1 message: offset, size, crc (CRC-32 of
// the rest), magic, attributes, [timestamp], key, value.
func legacyMessage(offset int64, magic, attrs byte, ts int64, key, value []byte) []byte {
	body := []byte{magic, attrs}
	if magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(ts))
	}
	for _, f := range [][]byte{key, value} {
		if f == nil {
			body = binary.BigEndian.AppendUint32(body, 0xffffffff)
			continue
		}
		body = binary.BigEndian.AppendUint32(body, uint32(len(f)))
		body = append(body, f...)
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(offset))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(body)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
	return append(out, body...)
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func concatBytes(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// generateSegments rewrites testdata/dumplog/segments.
func generateSegments(root string) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "dumplog-gen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	plainDir := filepath.Join(tmp, "orders-0")
	if err := writeLog(plainDir, 5, plainSteps()); err != nil {
		return fmt.Errorf("plain log: %w", err)
	}
	if err := copySegmentFiles(plainDir, filepath.Join(root, "plain")); err != nil {
		return err
	}
	steps, err := offsetsSteps()
	if err != nil {
		return err
	}
	offsetsDir := filepath.Join(tmp, "__consumer_offsets-0")
	if err := writeLog(offsetsDir, 0, steps); err != nil {
		return fmt.Errorf("offsets log: %w", err)
	}
	if err := copySegmentFiles(offsetsDir, filepath.Join(root, "offsets")); err != nil {
		return err
	}
	if err := copyOpenLog(filepath.Join(tmp, "live-0"), filepath.Join(root, "live"), 3, liveSteps()); err != nil {
		return fmt.Errorf("live log: %w", err)
	}
	if err := copyOpenLog(filepath.Join(tmp, "fresh-0"), filepath.Join(root, "fresh"), 3, liveSteps()[:1]); err != nil {
		return fmt.Errorf("fresh log: %w", err)
	}
	legacy, err := legacyLog()
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(root, "legacy", segName+".log"), legacy); err != nil {
		return err
	}
	return writeDamaged(filepath.Join(root, "plain"), root)
}

// copySegmentFiles copies the segment files (not checkpoints) of a
// partition directory.
func copySegmentFiles(from, to string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".log", ".index", ".timeindex", ".snapshot":
			b, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				return err
			}
			if err := writeFile(filepath.Join(to, e.Name()), b); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
