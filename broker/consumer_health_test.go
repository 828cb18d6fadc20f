package broker

import (
	"testing"

	"kafgo/broker/record"
)

func TestFirstRecordTime(t *testing.T) {
	build := func(base int64, ts ...int64) []byte {
		b := record.NewBuilder(base, record.CodecNone)
		for _, x := range ts {
			b.Append(x, nil, []byte("v"), nil)
		}
		out, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	marker, err := record.BuildEndTxnMarker(3, 7, 0, record.ControlCommit, 0, 999)
	if err != nil {
		t.Fatal(err)
	}
	data := append(append(build(0, 100, 200, 300), marker...), build(4, 400, 500)...)
	for _, c := range []struct {
		offset, want int64
		ok           bool
	}{{0, 100, true}, {2, 300, true}, {3, 400, true}, {5, 500, true}, {6, 0, false}} {
		got, ok := firstRecordTime(data, c.offset)
		if ok != c.ok || got != c.want {
			t.Errorf("offset %d: %d %v, want %d %v", c.offset, got, ok, c.want, c.ok)
		}
	}
	if _, ok := firstRecordTime(data[:30], 0); ok {
		t.Fatal("a cut batch gave a time")
	}
}
