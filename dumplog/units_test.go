package dumplog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/record"
	"kafgo/broker/storage"
)

// TestDamagedLayout pins the layout of the plain segment that the damaged
// copies (gen_test.go) are cut from, so a regenerated plain log that moved
// a batch fails here instead of silently damaging the wrong bytes.
func TestDamagedLayout(t *testing.T) {
	b, err := os.ReadFile(seg("plain/0.log"))
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	it := record.NewBatchIter(b)
	for it.Next() {
		starts = append(starts, it.Pos())
	}
	if it.Err() != nil || len(b) != plainLogSize || !equalInts(starts, plainBatchStarts) {
		t.Fatalf("plain log: %d bytes, batches at %v (err %v); gen_test.go expects %d bytes, batches at %v",
			len(b), starts, it.Err(), plainLogSize, plainBatchStarts)
	}
	idx, err := storage.ReadOffsetIndex(seg("plain/0.index"))
	if err != nil {
		t.Fatal(err)
	}
	want := []storage.OffsetIndexEntry{{Offset: 6, Position: 206}, {Offset: 10, Position: 447}, {Offset: 14, Position: 663}}
	if got := idx.Entries(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("plain index entries %v, want %v", got, want)
	}
	tidx, err := storage.ReadTimeIndex(seg("plain/0.timeindex"))
	if err != nil {
		t.Fatal(err)
	}
	wantT := []storage.TimeIndexEntry{{Timestamp: baseTime + 11, Offset: 6}, {Timestamp: baseTime + 31, Offset: 10}, {Timestamp: baseTime + 50, Offset: 14}}
	if got := tidx.Entries(); len(got) != len(wantT) || got[0] != wantT[0] || got[1] != wantT[1] || got[2] != wantT[2] {
		t.Fatalf("plain time index entries %v, want %v", got, wantT)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestIndexExport(t *testing.T) {
	for _, tc := range []struct {
		path string
		base int64
		ok   bool
	}{
		{"00000000000000000042.index", 42, true},
		{"/x/y/00000000000000001234.log.deleted", 1234, true},
		{"7.timeindex", 7, true},
		{"leader-epoch-checkpoint", 0, false},
		{"abc.log", 0, false},
		{".log", 0, false},
		{"99999999999999999999.log", 0, false}, // beyond int64
	} {
		if base, ok := storage.SegmentBaseOffset(tc.path); base != tc.base || ok != tc.ok {
			t.Errorf("SegmentBaseOffset(%q) = %d, %t; want %d, %t", tc.path, base, ok, tc.base, tc.ok)
		}
	}
	if got, want := storage.SegmentLogPath("/d/00000000000000000005.timeindex"), "/d/00000000000000000005.log"; got != want {
		t.Errorf("SegmentLogPath = %q, want %q", got, want)
	}

	idx, err := storage.ReadOffsetIndex(seg("plain/15.index"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ target, offset, pos int64 }{
		{15, 15, 0}, // below the first entry: the segment start
		{19, 15, 0},
		{20, 20, 222},
		{21, 20, 222},
		{22, 22, 386},
		{1000, 22, 386},
	} {
		if e := idx.Lookup(tc.target); e.Offset != tc.offset || e.Position != tc.pos {
			t.Errorf("Lookup(%d) = %+v, want (%d, %d)", tc.target, e, tc.offset, tc.pos)
		}
	}
	if idx.BaseOffset() != 15 || idx.Size() != 16 {
		t.Errorf("base %d size %d, want 15 and 16", idx.BaseOffset(), idx.Size())
	}

	if _, err := storage.ReadOffsetIndex(filepath.Join(t.TempDir(), "00000000000000000000.index")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing index: %v, want ErrNotExist", err)
	}
	if _, err := storage.ReadTimeIndex(seg("plain/nobase.timeindex")); !errors.Is(err, storage.ErrCorruptFile) {
		t.Errorf("index without a base offset in its name: %v, want ErrCorruptFile", err)
	}
	// The sanity check needs the segment's log, as on broker startup.
	dir := t.TempDir()
	only := filepath.Join(dir, segName+".index")
	if err := os.WriteFile(only, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lone, err := storage.ReadOffsetIndex(only)
	if err != nil {
		t.Fatal(err)
	}
	if err := lone.SanityCheck(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sanity check without a log: %v, want ErrNotExist", err)
	}
}

func mustBytes(t *testing.T) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

func TestOffsetsParser(t *testing.T) {
	must := mustBytes(t)
	okey := must(offsetsrec.OffsetKey("g", "t", 3).AppendTo(nil))
	gkey := must(offsetsrec.GroupKey("grp").AppendTo(nil))
	consumerGroup := func(assignment []byte) []byte {
		p := "range"
		return must(offsetsrec.GroupValue{Version: 3, ProtocolType: "consumer", Protocol: &p, Generation: 1,
			Members: []offsetsrec.MemberValue{{MemberID: "m", Assignment: assignment}}}.AppendTo(nil))
	}
	assignment := func(version int16) []byte {
		a := kmsg.NewConsumerMemberAssignment()
		a.Version = version
		a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "t", Partitions: []int32{2}}}
		return a.AppendTo(nil)
	}
	for _, tc := range []struct {
		name       string
		key, value []byte
		want       contents
		err        string
	}{
		{"offset v3", okey, must(offsetsrec.OffsetValue{Version: 3, Offset: 9, LeaderEpoch: 1}.AppendTo(nil)),
			contents{key: "offset_commit::group=g,partition=t-3", payload: "offset=9", hasKey: true, hasPayload: true}, ""},
		{"offset v0 metadata", okey, must(offsetsrec.OffsetValue{Version: 0, Offset: 1, Metadata: "a,b=c"}.AppendTo(nil)),
			contents{key: "offset_commit::group=g,partition=t-3", payload: "offset=1,metadata=a,b=c", hasKey: true, hasPayload: true}, ""},
		{"offset tombstone", okey, nil,
			contents{key: "offset_commit::group=g,partition=t-3", payload: "<DELETE>", hasKey: true, hasPayload: true}, ""},
		{"group tombstone", gkey, nil,
			contents{key: "group_metadata::group=grp", payload: "<DELETE>", hasKey: true, hasPayload: true}, ""},
		{"future assignment version", gkey, consumerGroup(assignment(7)),
			contents{key: "group_metadata::group=grp", payload: `{"protocolType":"consumer","protocol":"range","generationId":1,"assignment":"{m=[t-2]}"}`, hasKey: true, hasPayload: true}, ""},
		{"unknown key version", []byte{0, 12, 1}, []byte{1},
			contents{key: "unknown::version=12", hasKey: true}, ""},
		{"missing key", nil, []byte{0, 0}, contents{}, "missing key"},
		{"truncated key", okey[:5], nil, contents{}, "offsets decoder"},
		{"key with trailing bytes", append(append([]byte{}, okey...), 0), nil, contents{}, "offsets decoder"},
		{"unknown offset value version", okey, []byte{0, 9, 0, 0},
			contents{key: "offset_commit::group=g,partition=t-3", hasKey: true}, "offset commit value version 9"},
		{"truncated offset value", okey, []byte{0, 3, 0, 0, 0},
			contents{key: "offset_commit::group=g,partition=t-3", hasKey: true}, "malformed"},
		{"garbage consumer assignment", gkey, consumerGroup([]byte{0, 1, 0x7f, 0xff, 0xff, 0xff}),
			contents{key: "group_metadata::group=grp", hasKey: true}, `member "m": consumer protocol assignment`},
		{"negative assignment version", gkey, consumerGroup(assignment(-1)),
			contents{key: "group_metadata::group=grp", hasKey: true}, "unsupported version -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := offsetsParser{}.parse(tc.key, tc.value)
			if got != tc.want {
				t.Errorf("contents %+v, want %+v", got, tc.want)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestTextHelpers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"caf\xc3\xa9", "café"},
		{"a\xffb", "a\ufffdb"},
		{"\xe2\x82", "\ufffd\ufffd"},
		{"", ""},
	} {
		if got := javaString([]byte(tc.in)); got != tc.want {
			t.Errorf("javaString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\tnl\ncr\rbs\bff\f", `"tab\tnl\ncr\rbs\bff\f"`},
		{"\x01\x1f", `"\u0001\u001F"`},
		{"<&> é / \u2028", "\"<&> é / \u2028\""},
	} {
		if got := jsonQuote(tc.in); got != tc.want {
			t.Errorf("jsonQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{nil, ""},
		{[]byte{0}, "0"},
		{[]byte{0, 0}, "0"},
		{[]byte{0x0a}, "A"},
		{[]byte{0x00, 0x0a, 0xff}, "AFF"},
		{[]byte{0xde, 0xad, 0x00}, "DEAD00"},
		{[]byte{0x01, 0x02}, "102"},
	} {
		if got := hexBigInt(tc.in); got != tc.want {
			t.Errorf("hexBigInt(%x) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if javaOptionLong(-1) != "None" || javaOptionLong(0) != "Some(0)" || javaOptionLong(12) != "Some(12)" {
		t.Error("javaOptionLong does not print Scala's Option")
	}
}

func TestOptionsValidate(t *testing.T) {
	base := DefaultOptions()
	base.Files = []string{"a.log"}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		err  string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no files", func(o *Options) { o.Files = nil }, `Missing required argument "[files]"`},
		{"zero max message size", func(o *Options) { o.MaxMessageSize = 0 }, "--max-message-size"},
		{"negative max bytes", func(o *Options) { o.MaxBytes = -1 }, "--max-bytes"},
		{"zero max bytes", func(o *Options) { o.MaxBytes = 0 }, ""},
		{"negative decompression limit", func(o *Options) { o.MaxDecompressed = -1 }, "decompressed"},
		{"kafka 3.x string decoder", func(o *Options) { o.ValueDecoderClass = "org.apache.kafka.tools.api.StringDecoder" }, ""},
		{"other decoder", func(o *Options) { o.KeyDecoderClass = "kafka.serializer.DefaultDecoder" }, "only kafka.serializer.StringDecoder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			err := o.Validate()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Validate: %v, want %q", err, tc.err)
			}
		})
	}
	o := base
	if o.printData() || o.deep() {
		t.Error("defaults print data or iterate deeply")
	}
	for _, set := range []func(*Options){
		func(o *Options) { o.PrintDataLog = true },
		func(o *Options) { o.OffsetsDecoder = true },
		func(o *Options) { o.KeyDecoderClass = StringDecoder },
		func(o *Options) { o.ValueDecoderClass = StringDecoder },
	} {
		o := base
		set(&o)
		if !o.printData() || !o.deep() {
			t.Errorf("%+v: want print-data-log and deep iteration implied", o)
		}
	}
}

// v2 returns an encoded batch at base with the given values.
func v2(t *testing.T, base int64, values ...string) []byte {
	t.Helper()
	b := record.NewBuilder(base, record.CodecNone)
	for i, v := range values {
		b.Append(baseTime+int64(i), nil, []byte(v), nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSegmentReader(t *testing.T) {
	good := v2(t, 0, "x")
	legacy := legacyMessage(3, 1, 0, baseTime, nil, []byte("v"))
	short := func(b []byte, n int) []byte { return append([]byte{}, b[:n]...) }
	withSize := func(b []byte, size int32) []byte {
		c := append([]byte{}, b...)
		binary.BigEndian.PutUint32(c[8:], uint32(size))
		return c
	}
	for _, tc := range []struct {
		name      string
		data      []byte
		truncated bool   // error wraps record.ErrTruncated
		err       string // error contains
		last      int64  // last offset when no error
	}{
		{"v2 batch", good, false, "", 0},
		{"legacy message", legacy, false, "", 3},
		{"a few bytes", short(good, 10), true, "magic", 0},
		{"part of a header", short(good, 40), true, "batch header", 0},
		{"torn batch", short(good, len(good)-1), true, "only", 0},
		{"batch length below the minimum", withSize(good, 10), false, "batchLength", 0},
		{"huge batch length", withSize(good, 1<<30), true, "only", 0},
		{"unknown magic", func() []byte { c := append([]byte{}, good...); c[16] = 9; return c }(), false, "magic", 0},
		{"torn legacy message", short(legacy, len(legacy)-2), true, "message of", 0},
		{"legacy size below the minimum", withSize(legacy, 10), false, "messageSize", 0},
		{"legacy size short of the magic", withSize(legacy, 3), false, "messageSize", 0},
		{"negative legacy size", withSize(legacy, -5), false, "messageSize", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := &segmentReader{r: bytes.NewReader(tc.data)}
			e, err := sr.at(0, int64(len(tc.data)))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("at: %v", err)
				}
				if e.lastOffset() != tc.last || e.size() != int64(len(tc.data)) {
					t.Fatalf("entry last offset %d size %d, want %d and %d", e.lastOffset(), e.size(), tc.last, len(tc.data))
				}
				if _, err := sr.at(e.size(), int64(len(tc.data))); !errors.Is(err, io.EOF) {
					t.Fatalf("after the only entry: %v, want EOF", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || errors.Is(err, record.ErrTruncated) != tc.truncated {
				t.Fatalf("at: %v; want an error containing %q, truncated %t", err, tc.err, tc.truncated)
			}
		})
	}
	// Record error positions are file positions.
	data := append(append([]byte{}, good...), withSize(good, 10)...)
	_, err := (&segmentReader{r: bytes.NewReader(data)}).at(int64(len(good)), int64(len(data)))
	var re *record.Error
	if !errors.As(err, &re) || re.Offset != len(good)+8 {
		t.Fatalf("error %v: want a record error at byte %d", err, len(good)+8)
	}
}

// writeSegment writes data as a segment file in a temp dir.
func writeSegment(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNonConsecutiveOffsets(t *testing.T) {
	// Two gaps, as compaction leaves them: 1 -> 5 and 6 -> 9.
	data := bytes.Join([][]byte{v2(t, 0, "a", "b"), v2(t, 5, "c", "d"), v2(t, 9, "e")}, nil)
	path := writeSegment(t, segName+".log", data)
	stdout, stderr, code := runCommand(t, "--deep-iteration", "--files", path)
	if code != 0 {
		t.Fatalf("exit %d: gaps are not an error\n%s", code, stderr)
	}
	want := "Non-consecutive offsets in " + path + "\n  6 is followed by 9\n  1 is followed by 5\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant (newest first, as Kafka):\n%s", stderr, want)
	}
	if strings.Count(stdout, "| offset:") != 5 {
		t.Errorf("want 5 record lines:\n%s", stdout)
	}
	// Shallow iteration does not look at records, so reports nothing.
	if _, stderr, _ := runCommand(t, "--files", path); stderr != "" {
		t.Errorf("shallow dump reported %q", stderr)
	}
}

func TestCorruptLegacy(t *testing.T) {
	good := legacyMessage(0, 1, 0, baseTime, nil, []byte("fine"))
	badCRC := legacyMessage(1, 1, 0, baseTime, nil, []byte("flipped"))
	badCRC[len(badCRC)-1] ^= 1
	garbage := legacyMessage(2, 1, byte(record.CodecGzip), baseTime, nil, []byte("not gzip"))
	for _, tc := range []struct {
		name   string
		data   []byte
		stdout []string
		stderr []string
	}{
		{"bad crc", concatBytes(good, badCRC),
			[]string{"offset: 1 position: 38 CreateTime: 1700000000000 size: 41 magic: 1 compresscodec: none crc: ", "isvalid: false", "isValid: false crc: "},
			[]string{"Invalid message at byte 38 of "}},
		{"undecompressible wrapper", concatBytes(good, garbage),
			[]string{"compresscodec: gzip"},
			[]string{"Undecodable compressed message at byte 38 of ", "decompressing gzip"}},
		{"torn tail", concatBytes(good, good[:20]),
			[]string{"Found 20 invalid bytes at the end of " + segName + ".log"},
			[]string{"Stopped at byte 38 of ", "message of 38 bytes, only 20 bytes left"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSegment(t, segName+".log", tc.data)
			stdout, stderr, code := runCommand(t, "--print-data-log", "--files", path)
			if code != ExitCorrupt {
				t.Errorf("exit %d, want %d", code, ExitCorrupt)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

func TestControlRecords(t *testing.T) {
	abort, err := record.BuildEndTxnMarker(0, 7, 0, record.ControlAbort, 3, baseTime)
	if err != nil {
		t.Fatal(err)
	}
	b := record.NewBuilder(1, record.CodecNone)
	b.SetProducer(7, 0, -1)
	b.SetTransactional(true)
	b.SetControl(true)
	b.Append(baseTime, record.ControlKey{Type: 2}.AppendTo(nil), []byte{0, 0}, nil) // KRaft LEADER_CHANGE
	b.Append(baseTime, record.ControlKey{Type: 42}.AppendTo(nil), nil, nil)
	b.Append(baseTime, []byte{0}, nil, nil) // too short for a control key
	other, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := writeSegment(t, segName+".log", concatBytes(abort, other))
	stdout, stderr, code := runCommand(t, "--print-data-log", "--files", path)
	for _, s := range []string{
		"headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 3\n",
		"headerKeys: [] controlType: LEADER_CHANGE(2)\n",
		"headerKeys: [] controlType: UNKNOWN(42)\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if code != ExitCorrupt || !strings.Contains(stderr, "Undecodable control record in the batch at byte 78") {
		t.Errorf("exit %d, stderr %q: want the short control key reported", code, stderr)
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriteFailure(t *testing.T) {
	o := DefaultOptions()
	o.Files = []string{seg("plain/0.log"), seg("plain/15.log")}
	o.DeepIteration = true
	err := Run(o, failingWriter{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "write output: broken pipe") {
		t.Fatalf("Run: %v, want the write error", err)
	}
	var de *Error
	if errors.As(err, &de) {
		t.Fatalf("a write failure is not a dump problem: %v", err)
	}
}

func TestErrorExitCodes(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		code int
		msg  string
	}{
		{Error{Corrupt: []string{"a.log"}}, ExitCorrupt, "dumplog: problems in a.log"},
		{Error{Failed: []string{"b.log"}}, ExitFailed, "dumplog: could not read b.log"},
		{Error{Corrupt: []string{"a.log", "c.index"}, Failed: []string{"b.log"}}, ExitFailed, "dumplog: could not read b.log; problems in a.log, c.index"},
	} {
		if tc.e.ExitCode() != tc.code || tc.e.Error() != tc.msg || !tc.e.AlreadyReported() {
			t.Errorf("%+v: exit %d %q, want %d %q", tc.e, tc.e.ExitCode(), tc.e.Error(), tc.code, tc.msg)
		}
	}
}

func TestOffsetsDecoderBadRecords(t *testing.T) {
	// Records the offsets decoder cannot read are reported with the batch
	// they are in, and the dump goes on.
	must := mustBytes(t)
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(baseTime, []byte{0, 1, 0}, []byte{0, 3}, nil) // torn offset key
	b.Append(baseTime, must(offsetsrec.OffsetKey("g", "t", 0).AppendTo(nil)), []byte{0, 9}, nil)
	b.Append(baseTime, nil, []byte("no key"), nil)
	b.Append(baseTime, must(offsetsrec.OffsetKey("g", "t", 1).AppendTo(nil)), must(offsetsrec.OffsetValue{Version: 3, Offset: 4}.AppendTo(nil)), nil)
	batch, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := writeSegment(t, segName+".log", batch)
	stdout, stderr, code := runCommand(t, "--offsets-decoder", "--files", path)
	if code != ExitCorrupt {
		t.Errorf("exit %d, want %d", code, ExitCorrupt)
	}
	for _, s := range []string{
		"Undecodable record (offset 0) in the batch at byte 0 of ",
		"Undecodable record (offset 1) in the batch at byte 0 of ", "offset commit value version 9",
		"Undecodable record (offset 2) in the batch at byte 0 of ", "missing key",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	for _, s := range []string{
		"sequence: -1 headerKeys: []\n",
		"headerKeys: [] key: offset_commit::group=g,partition=t-0\n",
		"headerKeys: [] key: offset_commit::group=g,partition=t-1 payload: offset=4\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}
