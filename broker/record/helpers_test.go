package record

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var allCodecs = []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd}

const testLimit = 1 << 20

// payload returns n bytes of deterministic, compressible text.
func payload(seed uint64, n int) []byte {
	words := []string{"kafka", "batch", "record", "offset", "leader", "epoch", "segment", "index", "replica", "topic"}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

// sampleRecords covers the shapes a record can take: null and empty keys
// and values, headers with null and empty values, negative deltas.
func sampleRecords() []Record {
	return []Record{
		{Key: nil, Value: []byte("hello")},
		{Key: []byte{}, Value: []byte{}, TimestampDelta: 5, OffsetDelta: 1},
		{Key: []byte("k"), Value: nil, TimestampDelta: -3, OffsetDelta: 2},
		{Key: []byte("key"), Value: payload(1, 300), TimestampDelta: 1 << 40, OffsetDelta: 3,
			Headers: []Header{{Key: "a", Value: []byte("1")}, {Key: "", Value: nil}, {Key: "e", Value: []byte{}}}},
		{Attributes: 0x7f, OffsetDelta: 4, Value: payload(2, 20)},
	}
}

// buildSample builds a batch of n records of size bytes with codec.
func buildSample(t testing.TB, codec Codec, n, size int) []byte {
	t.Helper()
	b := NewBuilder(1000, codec)
	for i := 0; i < n; i++ {
		b.Append(1_700_000_000_000+int64(i), []byte(fmt.Sprintf("key-%d", i)), payload(uint64(i), size), nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatalf("build %v: %v", codec, err)
	}
	return out
}

func equalBytesNull(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// diffRecords describes the first difference between two record lists,
// treating nil and empty as different and nil and empty header lists as
// the same (both encode as a zero count).
func diffRecords(want, got []Record) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := &want[i], &got[i]
		switch {
		case w.Attributes != g.Attributes, w.TimestampDelta != g.TimestampDelta, w.OffsetDelta != g.OffsetDelta:
			return fmt.Sprintf("record %d: fields %+v, want %+v", i, *g, *w)
		case !equalBytesNull(w.Key, g.Key):
			return fmt.Sprintf("record %d: key %q (nil %v), want %q (nil %v)", i, g.Key, g.Key == nil, w.Key, w.Key == nil)
		case !equalBytesNull(w.Value, g.Value):
			return fmt.Sprintf("record %d: value %q (nil %v), want %q (nil %v)", i, g.Value, g.Value == nil, w.Value, w.Value == nil)
		case len(w.Headers) != len(g.Headers):
			return fmt.Sprintf("record %d: %d headers, want %d", i, len(g.Headers), len(w.Headers))
		}
		for j := range w.Headers {
			if w.Headers[j].Key != g.Headers[j].Key || !equalBytesNull(w.Headers[j].Value, g.Headers[j].Value) {
				return fmt.Sprintf("record %d header %d: %+v, want %+v", i, j, g.Headers[j], w.Headers[j])
			}
		}
	}
	return ""
}

// wantErr checks err is an *Error of kind k whose message contains sub
// and, when off >= 0, whose offset is off.
func wantErr(t *testing.T, err error, k Kind, sub string, off int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *Error", err, err)
	}
	if e.Kind != k {
		t.Errorf("kind %v, want %v: %v", e.Kind, k, err)
	}
	if !strings.Contains(err.Error(), sub) {
		t.Errorf("error %q does not mention %q", err, sub)
	}
	if off >= 0 && e.Offset != off {
		t.Errorf("offset %d, want %d: %v", e.Offset, off, err)
	}
	if !strings.HasPrefix(err.Error(), "record: ") {
		t.Errorf("error %q lacks the package prefix", err)
	}
}

// legacyMsg encodes one legacy message with franz-go's kmsg types, an
// encoder independent of ours; crc is computed unless bad is set.
func legacyMsg(magic int8, offset int64, attrs int8, ts int64, key, value []byte, bad bool) []byte {
	var body []byte
	if magic == 0 {
		m := kmsg.MessageV0{Offset: offset, Magic: 0, Attributes: attrs, Key: key, Value: value}
		body = m.AppendTo(nil)
	} else {
		m := kmsg.MessageV1{Offset: offset, Magic: 1, Attributes: attrs, Timestamp: ts, Key: key, Value: value}
		body = m.AppendTo(nil)
	}
	// kmsg writes MessageSize and CRC as given; fill them in.
	putU32(body[8:], uint32(len(body)-12))
	crc := crc32.ChecksumIEEE(body[16:])
	if bad {
		crc++
	}
	putU32(body[12:], crc)
	return body
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
