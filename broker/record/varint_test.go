package record

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestVarintRoundTrip(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 1 << 20, math.MaxInt32, math.MinInt32} {
		b := appendVarint(nil, v)
		if len(b) != sizeVarlong(int64(v)) {
			t.Errorf("varint %d: %d bytes, sizeVarlong says %d", v, len(b), sizeVarlong(int64(v)))
		}
		got, n := readVarint(b)
		if got != v || n != len(b) {
			t.Errorf("varint %d: decoded %d using %d of %d bytes", v, got, n, len(b))
		}
	}
	for _, v := range []int64{0, -1, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64} {
		b := appendVarlong(nil, v)
		if len(b) != sizeVarlong(v) {
			t.Errorf("varlong %d: %d bytes, sizeVarlong says %d", v, len(b), sizeVarlong(v))
		}
		got, n := readVarlong(b)
		if got != v || n != len(b) {
			t.Errorf("varlong %d: decoded %d using %d of %d bytes", v, got, n, len(b))
		}
	}
}

func TestVarintMalformed(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		long  bool // decode as varlong
		wantN int
		wantV int64
	}{
		{"empty", nil, false, varShort, 0},
		{"continuation then end", []byte{0x80}, false, varShort, 0},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, false, varOverflow, 0},
		{"fifth byte overflows int32", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, false, varOverflow, 0},
		{"max zigzag int32", []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}, false, 5, math.MaxInt32},
		{"non-minimal zero", []byte{0x80, 0x00}, false, 2, 0},
		{"varlong eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, true, varOverflow, 0},
		{"varlong tenth byte overflows", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, true, varOverflow, 0},
		{"varlong min int64", binary.AppendVarint(nil, math.MinInt64), true, 10, math.MinInt64},
		{"varlong short", []byte{0xff, 0xff}, true, varShort, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v int64
			var n int
			if tt.long {
				v, n = readVarlong(tt.in)
			} else {
				var v32 int32
				v32, n = readVarint(tt.in)
				v = int64(v32)
			}
			if n != tt.wantN || (n > 0 && v != tt.wantV) {
				t.Errorf("got (%d, %d), want (%d, %d)", v, n, tt.wantV, tt.wantN)
			}
		})
	}
}

// TestVarintMatchesStdlib checks the hand-written decoder against
// encoding/binary, the reference for zigzag varints, over many values.
func TestVarintMatchesStdlib(t *testing.T) {
	for i := int64(-70000); i <= 70000; i += 7 {
		b := binary.AppendVarint(nil, i)
		want, wn := binary.Varint(b)
		got, gn := readVarlong(b)
		if got != want || gn != wn {
			t.Fatalf("%d: got (%d,%d) want (%d,%d)", i, got, gn, want, wn)
		}
		g32, n32 := readVarint(b)
		if int64(g32) != want || n32 != wn {
			t.Fatalf("%d as varint: got (%d,%d) want (%d,%d)", i, g32, n32, want, wn)
		}
	}
}
