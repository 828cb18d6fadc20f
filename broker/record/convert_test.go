package record

import (
	"bytes"
	"testing"
)

func TestDownAndUpConvert(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			b := NewBuilder(100, codec)
			b.Append(1_700_000_000_000, []byte("k1"), []byte("v1"), []Header{{Key: "h", Value: []byte("x")}})
			b.Append(1_700_000_000_005, nil, []byte("v2"), nil)
			b.Append(1_700_000_000_009, []byte("k3"), nil, nil)
			batch, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			ctl, err := BuildEndTxnMarker(103, 7, 0, ControlCommit, 0, 1_700_000_000_010)
			if err != nil {
				t.Fatal(err)
			}
			legacy, err := DownConvert(append(batch, ctl...), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			it := NewLegacyIter(legacy)
			var got []LegacyMessage
			for it.Next() {
				got = append(got, it.Message())
			}
			if it.Err() != nil || len(got) != 3 {
				t.Fatalf("down-converted %d messages, err %v", len(got), it.Err())
			}
			for i, m := range got {
				if m.Magic != 1 || m.Offset != int64(100+i) || !m.ValidCRC() || m.Codec() != CodecNone {
					t.Fatalf("message %d: %+v", i, m)
				}
			}
			if !bytes.Equal(got[0].Key, []byte("k1")) || got[1].Key != nil || got[2].Value != nil || got[1].Timestamp != 1_700_000_000_005 {
				t.Fatalf("contents %+v", got)
			}

			up, err := UpConvert(legacy, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := ParseBatch(up, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if len(parsed.Records) != 3 || string(parsed.Records[2].Key) != "k3" || parsed.TimestampOf(&parsed.Records[1]) != 1_700_000_000_005 {
				t.Fatalf("up-converted %+v", parsed)
			}
			if _, err := ValidateBatch(up, 1<<20); err != nil {
				t.Fatalf("up-converted batch fails produce validation: %v", err)
			}
		})
	}
}

func TestUpConvertRefusesBadInput(t *testing.T) {
	legacy := appendLegacyV1(nil, 0, 1, false, nil, []byte("v"))
	legacy[len(legacy)-1] ^= 0xff
	if _, err := UpConvert(legacy, 1<<20); KindOf(err) != KindCorrupt {
		t.Fatalf("bad CRC: %v", err)
	}
	if _, err := UpConvert(nil, 1<<20); err == nil {
		t.Fatal("empty message set accepted")
	}
	if _, err := UpConvert(legacy[:10], 1<<20); err == nil {
		t.Fatal("torn message set accepted")
	}
}

// TestUpConvertCompressedWrapper: a gzip wrapper of magic 1 messages (what
// a pre-0.11 producer sends) becomes one gzip v2 batch of its records.
func TestUpConvertCompressedWrapper(t *testing.T) {
	inner := innerSet(1, []int64{0, 1, 2}, 1_700_000_000_000)
	// Producers (kafka-python, Java) leave the wrapper offset 0: the
	// broker assigns offsets, so that must not be refused.
	wrapper := legacyMsg(1, 0, int8(CodecGzip), 1_700_000_000_000, nil, stdGzip(t, inner), false)
	up, err := UpConvert(wrapper, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseBatchHeader(up)
	if err != nil || h.Codec() != CodecGzip || h.RecordCount != 3 {
		t.Fatalf("header %+v, %v", h, err)
	}
}
