package record

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/klauspost/compress/snappy/xerial"
	"github.com/pierrec/lz4/v4"
)

// Independent compressors for legacy inner message sets, written the way
// the Java client of the time did (gzip stream, xerial snappy, LZ4 frame).
func stdGzip(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := stdgzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pierrecLZ4(t *testing.T, b []byte, opts ...lz4.Option) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	if err := w.Apply(opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLegacyIterUncompressed(t *testing.T) {
	var data []byte
	data = append(data, legacyMsg(0, 0, 0, 0, nil, []byte("v0"), false)...)
	data = append(data, legacyMsg(0, 1, 0, 0, []byte{}, nil, false)...)
	data = append(data, legacyMsg(1, 2, 0, 1234, []byte("k"), []byte("v1"), false)...)
	data = append(data, legacyMsg(1, 3, AttrTimestampType, 99, nil, []byte{}, true)...)
	type want struct {
		off   int64
		magic int8
		ts    int64
		key   []byte
		val   []byte
		crcOK bool
		lat   bool
	}
	wants := []want{
		{0, 0, NoTimestamp, nil, []byte("v0"), true, false},
		{1, 0, NoTimestamp, []byte{}, nil, true, false},
		{2, 1, 1234, []byte("k"), []byte("v1"), true, false},
		{3, 1, 99, nil, []byte{}, false, true},
	}
	it := NewLegacyIter(data)
	pos, i := 0, 0
	for ; it.Next(); i++ {
		m := it.Message()
		w := wants[i]
		if m.Offset != w.off || m.Magic != w.magic || m.Timestamp != w.ts || !equalBytesNull(m.Key, w.key) ||
			!equalBytesNull(m.Value, w.val) || m.ValidCRC() != w.crcOK || m.LogAppendTime() != w.lat {
			t.Errorf("message %d: %+v valid=%v, want %+v", i, m, m.ValidCRC(), w)
		}
		if it.Pos() != pos || len(it.Raw()) != m.Size {
			t.Errorf("message %d at %d size %d, want at %d", i, it.Pos(), m.Size, pos)
		}
		inner, err := m.Inner(testLimit)
		if err != nil || len(inner) != 1 || inner[0].Offset != m.Offset {
			t.Errorf("message %d: Inner of an uncompressed message: %v %v", i, inner, err)
		}
		pos += m.Size
	}
	if it.Err() != nil || i != len(wants) {
		t.Fatalf("%d messages, err %v", i, it.Err())
	}
}

func innerSet(magic int8, offsets []int64, ts int64) []byte {
	var set []byte
	for i, o := range offsets {
		set = append(set, legacyMsg(magic, o, 0, ts+int64(i), []byte{byte('a' + i)}, []byte("value"), false)...)
	}
	return set
}

func TestLegacyCompressedWrappers(t *testing.T) {
	tests := []struct {
		name       string
		magic      int8
		codec      Codec
		attrs      int8
		wrapperOff int64
		innerOffs  []int64
		compress   func(t *testing.T, b []byte) []byte
		wantOffs   []int64
		wantTS     []int64 // nil: inner's own
	}{
		{"v0 gzip absolute offsets", 0, CodecGzip, 0, 12, []int64{10, 11, 12}, stdGzip, []int64{10, 11, 12}, nil},
		{"v0 snappy xerial", 0, CodecSnappy, 0, 5, []int64{4, 5}, func(_ *testing.T, b []byte) []byte { return xerial.Encode(nil, b) }, []int64{4, 5}, nil},
		{"v0 lz4 pre-KIP-57 checksum", 0, CodecLZ4, 0, 2, []int64{0, 1, 2}, func(t *testing.T, b []byte) []byte { return kafkaBrokenLZ4(pierrecLZ4(t, b), false) }, []int64{0, 1, 2}, nil},
		{"v1 gzip relative offsets", 1, CodecGzip, 0, 102, []int64{0, 1, 2}, stdGzip, []int64{100, 101, 102}, nil},
		{"v1 snappy raw block", 1, CodecSnappy, 0, 7, []int64{0, 1}, func(_ *testing.T, b []byte) []byte { return xerial.Encode(nil, b)[16+4:] }, []int64{6, 7}, nil},
		{"v1 lz4 log append time", 1, CodecLZ4, AttrTimestampType, 50, []int64{0, 1, 2, 3}, func(t *testing.T, b []byte) []byte { return pierrecLZ4(t, b) }, []int64{47, 48, 49, 50}, []int64{777, 777, 777, 777}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := innerSet(tt.magic, tt.innerOffs, 1000)
			comp := tt.compress(t, set)
			wrapper := legacyMsg(tt.magic, tt.wrapperOff, int8(tt.codec)|tt.attrs, 777, nil, comp, false)
			it := NewLegacyIter(wrapper)
			if !it.Next() {
				t.Fatal(it.Err())
			}
			m := it.Message()
			if m.Codec() != tt.codec || !m.ValidCRC() {
				t.Fatalf("wrapper codec %v valid %v", m.Codec(), m.ValidCRC())
			}
			inner, err := m.Inner(testLimit)
			if err != nil {
				t.Fatal(err)
			}
			if len(inner) != len(tt.wantOffs) {
				t.Fatalf("%d inner messages, want %d", len(inner), len(tt.wantOffs))
			}
			for i, in := range inner {
				if in.Offset != tt.wantOffs[i] {
					t.Errorf("inner %d offset %d, want %d", i, in.Offset, tt.wantOffs[i])
				}
				wantTS := NoTimestamp
				if tt.magic == 1 {
					wantTS = 1000 + int64(i)
				}
				if tt.wantTS != nil {
					wantTS = tt.wantTS[i]
					if !in.LogAppendTime() {
						t.Errorf("inner %d does not report LogAppendTime", i)
					}
				}
				if in.Timestamp != wantTS {
					t.Errorf("inner %d timestamp %d, want %d", i, in.Timestamp, wantTS)
				}
				if string(in.Key) != string(rune('a'+i)) || string(in.Value) != "value" || !in.ValidCRC() {
					t.Errorf("inner %d: key %q value %q valid %v", i, in.Key, in.Value, in.ValidCRC())
				}
			}
			if _, err := m.Inner(len(set) - 1); !errors.Is(err, ErrTooLarge) {
				t.Errorf("limit below the inner set size: %v", err)
			}
		})
	}
}

func TestLegacyErrors(t *testing.T) {
	good := legacyMsg(1, 0, 0, 5, []byte("k"), []byte("v"), false)
	setSize := func(b []byte, n uint32) []byte { b = bytes.Clone(b); binary.BigEndian.PutUint32(b[8:], n); return b }
	wrap := func(magic int8, codec Codec, inner []byte) []byte {
		return legacyMsg(magic, 9, int8(codec), 0, nil, stdGzip(t, inner), false)
	}
	tests := []struct {
		name  string
		in    []byte
		inner bool // error comes from Inner, not the iterator
		kind  Kind
		cause error
		sub   string
	}{
		{"torn", good[:len(good)-1], false, KindCorrupt, ErrTruncated, "only"},
		{"header torn", good[:10], false, KindCorrupt, ErrTruncated, "need 17"},
		{"v2 batch", buildSample(t, CodecNone, 1, 1), false, KindCorrupt, ErrOtherMagic, "magic"},
		{"magic 5", func() []byte { b := bytes.Clone(good); b[16] = 5; return b }(), false, KindCorrupt, nil, "magic"},
		{"size below minimum", setSize(good, 21), false, KindCorrupt, nil, "minimum"},
		{"key past end", func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b[26:], 100); return b }(), false, KindCorrupt, nil, "keyLength"},
		{"key length -2", func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b[26:], 0xfffffffe); return b }(), false, KindCorrupt, nil, "negative"},
		{"trailing inside message", func() []byte {
			b := append(bytes.Clone(good), 0)
			binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
			return b
		}(), false, KindCorrupt, nil, "after the value"},
		{"null wrapper value", legacyMsg(1, 0, int8(CodecGzip), 0, nil, nil, false), true, KindInvalid, nil, "null value"},
		{"zstd wrapper", legacyMsg(1, 0, int8(CodecZstd), 0, nil, []byte("x"), false), true, KindCorrupt, nil, "not defined for magic"},
		{"nested compression", wrap(1, CodecGzip, legacyMsg(1, 0, int8(CodecGzip), 0, nil, []byte("x"), false)), true, KindInvalid, nil, "nested"},
		{"inner magic differs", wrap(1, CodecGzip, legacyMsg(0, 0, 0, 0, nil, []byte("x"), false)), true, KindInvalid, nil, "inner magic"},
		{"empty inner set", wrap(1, CodecGzip, nil), true, KindInvalid, nil, "no messages"},
		{"torn inner set", wrap(1, CodecGzip, good[:len(good)-2]), true, KindCorrupt, ErrTruncated, "decompressed"},
		{"relative offsets above wrapper", wrap(1, CodecGzip, innerSet(1, []int64{0, 20}, 0)), true, KindInvalid, nil, "below the last inner"},
		{"bad gzip", legacyMsg(0, 0, int8(CodecGzip), 0, nil, []byte("nope"), false), true, KindCorrupt, nil, "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := NewLegacyIter(tt.in)
			ok := it.Next()
			var err error
			if tt.inner {
				if !ok {
					t.Fatalf("iterator: %v", it.Err())
				}
				m := it.Message()
				_, err = m.Inner(testLimit)
			} else {
				if ok {
					t.Fatalf("iterated over %x", tt.in)
				}
				err = it.Err()
			}
			if err == nil {
				t.Fatal("no error")
			}
			wantErr(t, err, tt.kind, tt.sub, -1)
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("%v does not wrap %v", err, tt.cause)
			}
		})
	}
}

// TestWalkMixedFile walks a file that starts in the legacy format and goes
// on in v2, as a log upgraded in place does, switching iterators where
// each reports ErrOtherMagic.
func TestWalkMixedFile(t *testing.T) {
	var data []byte
	data = append(data, legacyMsg(0, 0, 0, 0, nil, []byte("a"), false)...)
	data = append(data, legacyMsg(1, 1, 0, 5, nil, []byte("b"), false)...)
	v2 := buildSample(t, CodecZstd, 2, 10)
	SetBaseOffset(v2, 2)
	data = append(data, v2...)
	data = append(data, legacyMsg(1, 4, 0, 6, nil, []byte("c"), false)...)

	var offsets []int64
	pos := 0
	for steps := 0; pos < len(data) && steps < 10; steps++ {
		magic, err := PeekMagic(data[pos:])
		if err != nil {
			t.Fatal(err)
		}
		if magic == MagicV2 {
			it := NewBatchIter(data[pos:])
			for it.Next() {
				h := it.Header()
				offsets = append(offsets, h.BaseOffset, h.LastOffset())
			}
			if err := it.Err(); err != nil && !errors.Is(err, ErrOtherMagic) {
				t.Fatal(err)
			}
			pos += it.Pos() // the end of the buffer after a clean end
			continue
		}
		it := NewLegacyIter(data[pos:])
		for it.Next() {
			offsets = append(offsets, it.Message().Offset)
		}
		if err := it.Err(); err != nil && !errors.Is(err, ErrOtherMagic) {
			t.Fatal(err)
		}
		pos += it.Pos()
	}
	want := []int64{0, 1, 2, 3, 4}
	if len(offsets) != len(want) {
		t.Fatalf("offsets %v, want %v", offsets, want)
	}
	for i := range want {
		if offsets[i] != want[i] {
			t.Fatalf("offsets %v, want %v", offsets, want)
		}
	}
}
