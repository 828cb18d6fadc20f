package record

import (
	"bytes"
	"errors"
	"testing"
)

// segment concatenates a batch of each codec, as a log segment holds them.
func segment(t *testing.T) (data []byte, starts []int) {
	t.Helper()
	for i, c := range allCodecs {
		starts = append(starts, len(data))
		b := buildSample(t, c, i+1, 40)
		SetBaseOffset(b, int64(100*i))
		data = append(data, b...)
	}
	return data, starts
}

func TestBatchIterWalksSegment(t *testing.T) {
	data, starts := segment(t)
	it := NewBatchIter(data)
	n := 0
	for it.Next() {
		if it.Pos() != starts[n] {
			t.Errorf("batch %d at %d, want %d", n, it.Pos(), starts[n])
		}
		h := it.Header()
		if h.BaseOffset != int64(100*n) || h.Codec() != allCodecs[n] || len(it.Raw()) != h.Size() {
			t.Errorf("batch %d: %+v, raw %d bytes", n, h, len(it.Raw()))
		}
		if err := VerifyCRC(it.Raw()); err != nil {
			t.Errorf("batch %d: %v", n, err)
		}
		if _, err := ParseBatch(it.Raw(), testLimit); err != nil {
			t.Errorf("batch %d: %v", n, err)
		}
		n++
	}
	if it.Err() != nil || n != len(allCodecs) {
		t.Fatalf("%d batches, err %v", n, it.Err())
	}
	if it.Next() {
		t.Fatal("Next after the end")
	}
}

func TestBatchIterTornTail(t *testing.T) {
	data, starts := segment(t)
	last := starts[len(starts)-1]
	// Cut the buffer at every byte of the last batch: the iterator yields
	// the complete batches and stops at the last one with ErrTruncated.
	for cut := last + 1; cut < len(data); cut++ {
		it := NewBatchIter(data[:cut])
		n := 0
		for it.Next() {
			n++
		}
		if n != len(starts)-1 {
			t.Fatalf("cut %d: %d batches", cut, n)
		}
		if !errors.Is(it.Err(), ErrTruncated) || it.Pos() != last {
			t.Fatalf("cut %d: err %v pos %d, want ErrTruncated at %d", cut, it.Err(), it.Pos(), last)
		}
		if KindOf(it.Err()) != KindCorrupt {
			t.Fatalf("cut %d: kind %v", cut, KindOf(it.Err()))
		}
	}
}

func TestBatchIterCorruptMiddle(t *testing.T) {
	data, starts := segment(t)
	tests := []struct {
		name  string
		at    int
		b     byte
		cause error
		sub   string
	}{
		{"magic", starts[2] + offMagic, 7, nil, "magic"},
		{"legacy magic", starts[2] + offMagic, 1, ErrOtherMagic, "magic"},
		{"batch length tiny", starts[2] + offBatchLength, 0xff, nil, "batchLength"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mut := bytes.Clone(data)
			if tt.name == "batch length tiny" {
				copy(mut[tt.at:], []byte{0, 0, 0, 3})
			} else {
				mut[tt.at] = tt.b
			}
			it := NewBatchIter(mut)
			n := 0
			for it.Next() {
				n++
			}
			if n != 2 || it.Pos() != starts[2] {
				t.Fatalf("%d batches, stopped at %d, want 2 and %d", n, it.Pos(), starts[2])
			}
			var e *Error
			if !errors.As(it.Err(), &e) || e.Offset < starts[2] || e.Offset >= starts[3] {
				t.Fatalf("error %v: offset not inside the bad batch [%d,%d)", it.Err(), starts[2], starts[3])
			}
			if tt.cause != nil && !errors.Is(it.Err(), tt.cause) {
				t.Fatalf("error %v does not wrap %v", it.Err(), tt.cause)
			}
			wantErr(t, it.Err(), KindCorrupt, tt.sub, -1)
		})
	}
}

func TestBatchIterFrameOnlyCRC(t *testing.T) {
	// A CRC failure is not the iterator's business: dump tools print
	// isvalid: false and carry on.
	data, starts := segment(t)
	data[starts[1]+BatchHeaderSize] ^= 0xff
	it := NewBatchIter(data)
	bad := 0
	for it.Next() {
		if VerifyCRC(it.Raw()) != nil {
			bad++
		}
	}
	if it.Err() != nil || bad != 1 {
		t.Fatalf("err %v, %d bad CRCs", it.Err(), bad)
	}
}

func TestPeekMagic(t *testing.T) {
	if m, err := PeekMagic(buildSample(t, CodecNone, 1, 1)); err != nil || m != 2 {
		t.Fatalf("magic %d err %v", m, err)
	}
	if m, err := PeekMagic(legacyMsg(1, 0, 0, 5, nil, []byte("v"), false)); err != nil || m != 1 {
		t.Fatalf("magic %d err %v", m, err)
	}
	if _, err := PeekMagic(make([]byte, 16)); !errors.Is(err, ErrTruncated) {
		t.Fatalf("short: %v", err)
	}
}
