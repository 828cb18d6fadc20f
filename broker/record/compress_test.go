package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/pierrec/lz4/v4"
)

var compressedCodecs = allCodecs[1:]

func TestCompressRoundTrip(t *testing.T) {
	for _, c := range compressedCodecs {
		for _, n := range []int{0, 1, 100, xerialBlockSize, xerialBlockSize + 1, 300_000} {
			t.Run(fmt.Sprintf("%v/%d", c, n), func(t *testing.T) {
				src := payload(uint64(n), n)
				comp, err := compress(c, []byte("hdr"), src)
				if err != nil {
					t.Fatal(err)
				}
				if string(comp[:3]) != "hdr" {
					t.Fatal("compress did not append")
				}
				out, err := decompress(c, MagicV2, []byte("x"), comp[3:], n)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out[1:], src) || out[0] != 'x' {
					t.Fatalf("round trip lost data: %d bytes back of %d", len(out)-1, n)
				}
				if n > 0 {
					_, err := decompress(c, MagicV2, nil, comp[3:], n-1)
					if !errors.Is(err, ErrTooLarge) {
						t.Fatalf("limit %d for %d bytes: %v, want ErrTooLarge", n-1, n, err)
					}
				}
			})
		}
	}
}

func TestDecompressGarbage(t *testing.T) {
	for _, c := range compressedCodecs {
		// {5} is a raw snappy block declaring 5 bytes and holding none.
		for i, in := range [][]byte{nil, {5}, []byte("definitely not compressed data"), bytes.Repeat([]byte{0xff}, 64)} {
			t.Run(fmt.Sprintf("%v/%d", c, i), func(t *testing.T) {
				out, err := decompress(c, MagicV2, nil, in, testLimit)
				if err == nil {
					t.Fatalf("decoded %d bytes from garbage", len(out))
				}
			})
		}
	}
	if _, err := decompress(Codec(6), MagicV2, nil, []byte{1}, 10); err == nil {
		t.Fatal("codec 6 accepted")
	}
	if _, err := decompress(CodecZstd, 1, nil, []byte{1}, 10); err == nil {
		t.Fatal("zstd accepted for magic 1")
	}
}

// TestZipBombs checks that a small input expanding far past the limit
// fails quickly and allocates about the limit, not the expansion.
func TestZipBombs(t *testing.T) {
	const limit = 1 << 20
	big := make([]byte, 16<<20)
	for _, c := range compressedCodecs {
		t.Run(c.String(), func(t *testing.T) {
			bomb, err := compress(c, nil, big)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err = decompress(c, MagicV2, nil, bomb, limit)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d-byte bomb: %v, want ErrTooLarge", len(bomb), err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
				t.Errorf("allocated %d MiB for a %d MiB limit", alloc>>20, limit>>20)
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
	t.Run("raw snappy declaring 4 GiB", func(t *testing.T) {
		// A raw block's header is its decoded length; it must be
		// checked before anything is allocated.
		in := binary.AppendUvarint(nil, 1<<32-1)
		in = append(in, 0)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := decompress(CodecSnappy, MagicV2, nil, in, limit); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%v", err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Fatalf("allocated %d bytes", alloc)
		}
	})
	t.Run("xerial chunks summing past the limit", func(t *testing.T) {
		chunk := s2.EncodeSnappy(nil, make([]byte, 60_000))
		in := xerialAppend(nil, nil)
		for i := 0; i < 20; i++ {
			in = binary.BigEndian.AppendUint32(in, uint32(len(chunk)))
			in = append(in, chunk...)
		}
		if _, err := decompress(CodecSnappy, MagicV2, nil, in, limit); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%v", err)
		}
	})
}

func TestXerialMalformed(t *testing.T) {
	hdr := xerialAppend(nil, nil)
	block := s2.EncodeSnappy(nil, []byte("hello"))
	framed := binary.BigEndian.AppendUint32(bytes.Clone(hdr), uint32(len(block)))
	framed = append(framed, block...)
	tests := []struct {
		name string
		in   []byte
		sub  string
	}{
		{"header cut", hdr[:12], "xerial header"},
		{"chunk length cut", append(bytes.Clone(framed), 0, 0), "chunk length"},
		{"chunk past end", framed[:len(framed)-1], "length"},
		{"negative chunk", append(bytes.Clone(hdr), 0x80, 0, 0, 0), "length"},
		{"bad block", append(binary.BigEndian.AppendUint32(bytes.Clone(hdr), 2), 0xff, 0xff), "corrupt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decompress(CodecSnappy, MagicV2, nil, tt.in, testLimit)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.sub)) {
				t.Fatalf("err %v, want mention of %q", err, tt.sub)
			}
		})
	}
	if out, err := decompress(CodecSnappy, MagicV2, nil, hdr, testLimit); err != nil || len(out) != 0 {
		t.Fatalf("header only: %v, %d bytes", err, len(out))
	}
	if out, err := decompress(CodecSnappy, MagicV2, nil, framed, testLimit); err != nil || string(out) != "hello" {
		t.Fatalf("one chunk: %q %v", out, err)
	}
}

func TestCodecsConcurrent(t *testing.T) {
	// Pooled and shared codec state must be safe under -race.
	deadline := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40 && time.Now().Before(deadline); i++ {
				c := compressedCodecs[(g+i)%len(compressedCodecs)]
				src := payload(uint64(g*1000+i), 2000+i*37)
				comp, err := compress(c, nil, src)
				if err != nil {
					errs <- err
					return
				}
				// Vary the limit so pooled zstd decoders get reconfigured.
				out, err := decompress(c, MagicV2, nil, comp, len(src)+i%3)
				if err != nil || !bytes.Equal(out, src) {
					errs <- fmt.Errorf("%v goroutine %d iteration %d: %v", c, g, i, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestXXH32(t *testing.T) {
	// Reference values of the XXH32 specification (seed 0).
	for in, want := range map[string]uint32{"": 0x02cc5d05, "a": 0x550d7456, "abc": 0x32d153ff} {
		if got := xxh32([]byte(in), 0); got != want {
			t.Errorf("xxh32(%q) = %#x, want %#x", in, got, want)
		}
	}
	// lz4 frames end with the XXH32 of their content when the content
	// checksum is on: check lengths crossing the 16-byte stripe.
	for _, n := range []int{1, 15, 16, 17, 31, 32, 100, 4099} {
		src := payload(uint64(n), n)
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if err := w.Apply(lz4.ChecksumOption(true)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(src); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		frame := buf.Bytes()
		if got, want := xxh32(src, 0), binary.LittleEndian.Uint32(frame[len(frame)-4:]); got != want {
			t.Errorf("len %d: xxh32 %#x, frame checksum %#x", n, got, want)
		}
	}
}

// kafkaBrokenLZ4 rewrites a frame's header checksum the way Kafka before
// KIP-57 computed it: over the frame magic too.
func kafkaBrokenLZ4(frame []byte, contentSize bool) []byte {
	hc := 6
	if contentSize {
		hc += 8
	}
	out := bytes.Clone(frame)
	out[hc] = byte(xxh32(out[:hc], 0) >> 8)
	return out
}

func TestLegacyLZ4HeaderChecksum(t *testing.T) {
	src := payload(9, 5000)
	for _, withSize := range []bool{false, true} {
		t.Run(fmt.Sprintf("contentSize=%v", withSize), func(t *testing.T) {
			var buf bytes.Buffer
			w := lz4.NewWriter(&buf)
			if withSize {
				if err := w.Apply(lz4.SizeOption(uint64(len(src)))); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Write(src); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			good := buf.Bytes()
			broken := kafkaBrokenLZ4(good, withSize)
			if bytes.Equal(good, broken) {
				t.Fatal("both checksums coincide for this input; pick another so the test means something")
			}
			// Magic 0 accepts both forms, magic 1 and 2 only the correct one.
			for _, in := range [][]byte{good, broken} {
				out, err := decompress(CodecLZ4, 0, nil, in, testLimit)
				if err != nil || !bytes.Equal(out, src) {
					t.Fatalf("magic 0: %v", err)
				}
			}
			if _, err := decompress(CodecLZ4, 1, nil, broken, testLimit); err == nil {
				t.Fatal("magic 1 accepted the pre-KIP-57 header checksum")
			}
			if out, err := decompress(CodecLZ4, 1, nil, good, testLimit); err != nil || !bytes.Equal(out, src) {
				t.Fatalf("magic 1: %v", err)
			}
		})
	}
}

func TestReadBoundedStalls(t *testing.T) {
	_, err := readBounded(nil, stallReader{}, 10, 0)
	if !errors.Is(err, errNoProgress) {
		t.Fatalf("%v", err)
	}
}

type stallReader struct{}

func (stallReader) Read([]byte) (int, error) { return 0, nil }
