package record

import (
	"errors"
	"testing"
)

func TestControlKey(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want ControlKey
		err  bool
	}{
		{"abort", []byte{0, 0, 0, 0}, ControlKey{0, ControlAbort}, false},
		{"commit", []byte{0, 0, 0, 1}, ControlKey{0, ControlCommit}, false},
		{"unknown type kept", []byte{0, 0, 0, 5}, ControlKey{0, 5}, false},
		{"newer version, extra bytes", []byte{0, 1, 0, 1, 9, 9}, ControlKey{1, ControlCommit}, false},
		{"short", []byte{0, 0, 0}, ControlKey{}, true},
		{"negative version", []byte{0xff, 0xff, 0, 1}, ControlKey{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseControlKey(tt.in)
			if tt.err {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("err %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v %v, want %+v", got, err, tt.want)
			}
			if enc := got.AppendTo(nil); string(enc) != string(tt.in[:4]) {
				t.Fatalf("encoded %x, want %x", enc, tt.in[:4])
			}
		})
	}
	for typ, name := range map[ControlType]string{ControlAbort: "ABORT", ControlCommit: "COMMIT", 3: "UNKNOWN(3)"} {
		if typ.String() != name {
			t.Errorf("%d prints %q, want %q", typ, typ.String(), name)
		}
	}
}

func TestEndTxnMarker(t *testing.T) {
	m := EndTxnMarker{Version: 0, CoordinatorEpoch: 0x01020304}
	enc := m.AppendTo(nil)
	if string(enc) != "\x00\x00\x01\x02\x03\x04" {
		t.Fatalf("encoded %x", enc)
	}
	got, err := ParseEndTxnMarker(append(enc, 0xaa))
	if err != nil || got != m {
		t.Fatalf("got %+v %v", got, err)
	}
	if _, err := ParseEndTxnMarker(enc[:5]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short: %v", err)
	}
	if _, err := ParseEndTxnMarker([]byte{0x80, 0, 0, 0, 0, 0}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("negative version: %v", err)
	}
}

func TestBuildEndTxnMarker(t *testing.T) {
	raw, err := BuildEndTxnMarker(50, 9, 2, ControlCommit, 7, 1234)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBatch(raw, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	if !b.IsControl() || !b.IsTransactional() || b.ProducerID != 9 || b.ProducerEpoch != 2 || b.BaseOffset != 50 || len(b.Records) != 1 {
		t.Fatalf("header %+v, %d records", b.BatchHeader, len(b.Records))
	}
	k, err := ParseControlKey(b.Records[0].Key)
	if err != nil || k.Type != ControlCommit {
		t.Fatalf("key %+v %v", k, err)
	}
	v, err := ParseEndTxnMarker(b.Records[0].Value)
	if err != nil || v.CoordinatorEpoch != 7 {
		t.Fatalf("value %+v %v", v, err)
	}
	// Clients may not produce it.
	if _, err := ValidateBatch(raw, testLimit); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ValidateBatch on a control batch: %v", err)
	}
}

func TestReadEndTxnMarker(t *testing.T) {
	for _, typ := range []ControlType{ControlAbort, ControlCommit} {
		b, err := BuildEndTxnMarker(7, 42, 3, typ, 9, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got, m, ok, err := ReadEndTxnMarker(b)
		if err != nil || !ok || got != typ || m.CoordinatorEpoch != 9 {
			t.Fatalf("%s: got %s %+v ok=%v err=%v", typ, got, m, ok, err)
		}
	}
	// A control batch of another type (KRaft's LEADER_CHANGE) is no marker.
	bl := NewBuilder(0, CodecNone)
	bl.SetControl(true)
	bl.Append(1, ControlKey{Type: 2}.AppendTo(nil), []byte{0, 0}, nil)
	other, err := bl.Build()
	if err != nil {
		t.Fatal(err)
	}
	if typ, _, ok, err := ReadEndTxnMarker(other); ok || err != nil || typ != 2 {
		t.Fatalf("leader change: type %d ok=%v err=%v", typ, ok, err)
	}
	// The cleaner's empty control batch holds no record.
	mk, err := BuildEndTxnMarker(7, 42, 3, ControlAbort, 9, 1000)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseBatchHeader(mk)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := (&Batch{BatchHeader: h}).AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := ReadEndTxnMarker(empty); ok || err != nil {
		t.Fatalf("empty: ok=%v err=%v", ok, err)
	}
}
