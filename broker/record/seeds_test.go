package record

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy/xerial"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpora under testdata/fuzz")

// seed is one corpus entry: a name and the fuzz function's arguments.
type seed struct {
	name string
	args []any // []byte or int32
	// valid marks seeds the decoder must accept, checked by TestFuzzSeeds
	// so that a corpus of only broken inputs cannot pass unnoticed.
	valid bool
}

func batchSeeds(t *testing.T) []seed {
	var seeds []seed
	for _, c := range allCodecs {
		raw, err := (&Batch{BatchHeader: BatchHeader{Attributes: int16(c), LastOffsetDelta: 4, FirstTimestamp: 10, MaxTimestamp: 20,
			ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, PartitionLeaderEpoch: -1}, Records: sampleRecords()}).AppendTo(nil)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, seed{"valid-" + c.String(), []any{raw}, true})
		seeds = append(seeds, seed{"produced-" + c.String(), []any{buildSample(t, c, 4, 30)}, true})
	}
	marker, err := BuildEndTxnMarker(9, 3, 1, ControlAbort, 2, 55)
	if err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, seed{"control-abort", []any{marker}, true})
	hb := NewBuilder(0, CodecNone)
	hb.SetDeleteHorizon(12345)
	hb.SetProducer(8, 2, 100)
	hb.Append(12000, []byte("k"), nil, nil)
	horizon, err := hb.Build()
	if err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, seed{"delete-horizon-tombstone", []any{horizon}, true})
	good := buildSample(t, CodecNone, 2, 5)
	seeds = append(seeds,
		seed{"torn", []any{good[:len(good)-3]}, false},
		seed{"header-only", []any{good[:BatchHeaderSize]}, false},
		seed{"legacy-message", []any{legacyMsg(1, 0, 0, 1, nil, []byte("v"), false)}, false},
	)
	return seeds
}

func recordSeeds() []seed {
	recs := sampleRecords()
	sec := encodeSection(recs)
	return []seed{
		{"sample", []any{sec, int32(len(recs))}, true},
		{"one", []any{encodeSection(recs[3:4]), int32(1)}, true},
		{"empty", []any{[]byte{}, int32(0)}, true},
		{"count-high", []any{sec, int32(len(recs) + 1)}, false},
		{"count-low", []any{sec, int32(len(recs) - 1)}, false},
		{"cut", []any{sec[:len(sec)-1], int32(len(recs))}, false},
	}
}

func legacySeeds(t *testing.T) []seed {
	set := innerSet(1, []int64{0, 1, 2}, 100)
	set0 := innerSet(0, []int64{7, 8}, 0)
	plain := append(legacyMsg(0, 0, 0, 0, nil, []byte("v0"), false), legacyMsg(1, 1, 0, 5, []byte("k"), []byte{}, false)...)
	return []seed{
		{"plain-v0-v1", []any{plain}, true},
		{"gzip-v1", []any{legacyMsg(1, 12, int8(CodecGzip), 9, nil, stdGzip(t, set), false)}, true},
		{"snappy-v1-log-append", []any{legacyMsg(1, 3, int8(CodecSnappy)|AttrTimestampType, 9, nil, xerial.Encode(nil, set), false)}, true},
		{"lz4-v1", []any{legacyMsg(1, 2, int8(CodecLZ4), 9, nil, pierrecLZ4(t, set), false)}, true},
		{"lz4-v0-kafka-checksum", []any{legacyMsg(0, 8, int8(CodecLZ4), 0, nil, kafkaBrokenLZ4(pierrecLZ4(t, set0), false), false)}, true},
		{"bad-crc", []any{legacyMsg(0, 0, 0, 0, nil, []byte("x"), true)}, true},
		{"then-v2", []any{append(legacyMsg(1, 0, 0, 1, nil, []byte("v"), false), buildSample(t, CodecNone, 1, 1)...)}, false},
	}
}

func decompressSeeds(t *testing.T) []seed {
	src := payload(3, 400)
	var seeds []seed
	for _, c := range compressedCodecs {
		comp, err := compress(c, nil, src)
		if err != nil {
			t.Fatal(err)
		}
		// The target maps data[0]%4+1 to the codec.
		seeds = append(seeds, seed{"ours-" + c.String(), []any{append([]byte{byte(c - 1)}, comp...)}, true})
	}
	seeds = append(seeds, seed{"snappy-raw", []any{append([]byte{byte(CodecSnappy - 1)}, xerial.Encode(nil, src)[20:]...)}, true})
	return seeds
}

func allSeeds(t *testing.T) map[string][]seed {
	return map[string][]seed{
		"FuzzParseBatch":    batchSeeds(t),
		"FuzzDecodeRecords": recordSeeds(),
		"FuzzLegacyIter":    legacySeeds(t),
		"FuzzDecompress":    decompressSeeds(t),
	}
}

func encodeCorpus(args []any) string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case int32:
			fmt.Fprintf(&b, "int32(%d)\n", v)
		}
	}
	return b.String()
}

func decodeCorpus(text string) ([]any, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("missing corpus header")
	}
	var args []any
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "[]byte(") && strings.HasSuffix(l, ")"):
			s, err := strconv.Unquote(l[len("[]byte(") : len(l)-1])
			if err != nil {
				return nil, err
			}
			args = append(args, []byte(s))
		case strings.HasPrefix(l, "int32(") && strings.HasSuffix(l, ")"):
			n, err := strconv.ParseInt(l[len("int32("):len(l)-1], 10, 32)
			if err != nil {
				return nil, err
			}
			args = append(args, int32(n))
		default:
			return nil, fmt.Errorf("unexpected line %q", l)
		}
	}
	return args, nil
}

// TestFuzzSeeds keeps the committed corpora in step with the generators:
// every seed is present and parses, and the valid ones decode. Compressed
// seeds may legitimately differ byte-wise after a codec library upgrade,
// so contents are not compared; -update-seeds rewrites them.
func TestFuzzSeeds(t *testing.T) {
	for target, seeds := range allSeeds(t) {
		dir := filepath.Join("testdata", "fuzz", target)
		if *updateSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range seeds {
				if err := os.WriteFile(filepath.Join(dir, s.name), []byte(encodeCorpus(s.args)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Run(target, func(t *testing.T) {
			names := make([]string, 0, len(seeds))
			for _, s := range seeds {
				names = append(names, s.name)
				text, err := os.ReadFile(filepath.Join(dir, s.name))
				if err != nil {
					t.Fatalf("seed %s missing (run go test -run TestFuzzSeeds -update-seeds): %v", s.name, err)
				}
				args, err := decodeCorpus(string(text))
				if err != nil {
					t.Fatalf("seed %s: %v", s.name, err)
				}
				if len(args) != len(s.args) {
					t.Fatalf("seed %s has %d arguments, want %d", s.name, len(args), len(s.args))
				}
				if s.valid {
					if err := acceptsSeed(target, args); err != nil {
						t.Errorf("valid seed %s rejected: %v", s.name, err)
					}
				}
			}
			sort.Strings(names)
			if len(names) == 0 {
				t.Fatal("no seeds")
			}
		})
	}
}

func acceptsSeed(target string, args []any) error {
	switch target {
	case "FuzzParseBatch":
		_, err := ParseBatch(args[0].([]byte), fuzzLimit)
		return err
	case "FuzzDecodeRecords":
		_, err := DecodeRecords(args[0].([]byte), args[1].(int32))
		return err
	case "FuzzLegacyIter":
		it := NewLegacyIter(args[0].([]byte))
		for it.Next() {
			m := it.Message()
			if _, err := m.Inner(fuzzLimit); err != nil {
				return err
			}
		}
		return it.Err()
	case "FuzzDecompress":
		d := args[0].([]byte)
		_, err := decompress(Codec(d[0]%4+1), MagicV2, nil, d[1:], 1<<16)
		return err
	}
	return fmt.Errorf("unknown target %s", target)
}
