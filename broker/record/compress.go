package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/pierrec/lz4/v4"
)

// Decoders and encoders are pooled because building them costs far more
// than a typical batch: gzip and lz4 state in sync.Pools, one shared zstd
// encoder (EncodeAll is safe for concurrent use) and pooled single-threaded
// zstd decoders (see compress_zstd.go).

// decompress appends the decompressed form of src to dst, failing with
// ErrTooLarge once the output would exceed limit bytes. magic selects the
// legacy quirks of magic 0 (see unlz4).
func decompress(c Codec, magic int8, dst, src []byte, limit int) ([]byte, error) {
	if limit < 0 {
		limit = 0
	}
	if len(src) == 0 {
		// Every codec's encoder writes a header even for no input, and
		// some decoders would read nothing as an empty stream.
		return dst, fmt.Errorf("%v: no compressed data", c)
	}
	switch c {
	case CodecGzip:
		return gunzip(dst, src, limit)
	case CodecSnappy:
		return unsnappy(dst, src, limit)
	case CodecLZ4:
		return unlz4(dst, src, limit, magic == 0)
	case CodecZstd:
		if magic < MagicV2 {
			return dst, fmt.Errorf("zstd needs magic 2, message has magic %d", magic)
		}
		return unzstd(dst, src, limit)
	}
	return dst, fmt.Errorf("unknown codec %d", int8(c))
}

// compress appends the compressed form of src to dst.
func compress(c Codec, dst, src []byte) ([]byte, error) {
	switch c {
	case CodecGzip:
		return gzipAppend(dst, src)
	case CodecSnappy:
		return xerialAppend(dst, src), nil
	case CodecLZ4:
		return lz4Append(dst, src)
	case CodecZstd:
		return zstdEncoder().EncodeAll(src, dst), nil
	}
	return dst, fmt.Errorf("record: cannot compress with %v", c)
}

// errNoProgress guards readBounded against a reader that keeps returning
// nothing; the decoders used here never do, but a loop on input must end.
var errNoProgress = errors.New("decompressor made no progress")

// readBounded appends everything r yields to dst, growing dst as needed but
// never to more than limit+1 new bytes, so a zip bomb costs at most the
// limit. hint is the expected output size. On error dst comes back as given.
func readBounded(dst []byte, r io.Reader, limit, hint int) ([]byte, error) {
	start := len(dst)
	dst = slices.Grow(dst, min(max(hint, 512), limit+1))
	for stalls := 0; ; {
		if len(dst) == cap(dst) {
			// Double, but stop one byte past the limit: reading that byte
			// is how an oversize output is detected.
			dst = slices.Grow(dst, min(limit+1-(len(dst)-start), max(len(dst)-start, 512)))
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), start+limit+1)])
		dst = dst[:len(dst)+n]
		if len(dst)-start > limit {
			return dst[:start], fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst[:start], err
		}
		if n == 0 {
			if stalls++; stalls > 100 {
				return dst[:start], errNoProgress
			}
		} else {
			stalls = 0
		}
	}
}

// appendWriter is an io.Writer appending to a slice, so stream encoders
// can write straight after the batch header.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

var (
	gzipReaders sync.Pool
	gzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
		return w
	}}
)

func gunzip(dst, src []byte, limit int) ([]byte, error) {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	defer gzipReaders.Put(zr)
	if err := zr.Reset(bytes.NewReader(src)); err != nil {
		return dst, fmt.Errorf("gzip: %w", err)
	}
	out, err := readBounded(dst, zr, limit, 4*len(src))
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("gzip: %w", err)
	}
	return out, err
}

func gzipAppend(dst, src []byte) ([]byte, error) {
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	w := appendWriter{b: dst}
	zw.Reset(&w)
	if _, err := zw.Write(src); err != nil {
		return dst, fmt.Errorf("record: gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return dst, fmt.Errorf("record: gzip: %w", err)
	}
	return w.b, nil
}

var (
	lz4Readers sync.Pool
	// 64 KiB blocks without a content checksum, as Kafka's Java
	// KafkaLZ4BlockOutputStream writes: the batch CRC already covers the
	// bytes, and small blocks keep the reader's buffers small.
	lz4Writers = sync.Pool{New: func() any {
		w := lz4.NewWriter(nil)
		_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false))
		return w
	}}
)

// unlz4 decodes one LZ4 frame. For magic 0 it first repairs the header
// checksum that Kafka before 0.10 computed over the magic number too
// (KIP-57), as Kafka's reader ignores that checksum for magic 0.
func unlz4(dst, src []byte, limit int, legacyHC bool) ([]byte, error) {
	var in io.Reader = bytes.NewReader(src)
	if legacyHC {
		if fixed, rest, ok := fixKafkaLZ4Header(src); ok {
			in = io.MultiReader(bytes.NewReader(fixed), bytes.NewReader(rest))
		}
	}
	zr, _ := lz4Readers.Get().(*lz4.Reader)
	if zr == nil {
		zr = lz4.NewReader(nil)
	}
	zr.Reset(in)
	defer func() {
		zr.Reset(nil)
		lz4Readers.Put(zr)
	}()
	out, err := readBounded(dst, zr, limit, 4*len(src))
	if err != nil && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("lz4: %w", err)
	}
	return out, err
}

func lz4Append(dst, src []byte) ([]byte, error) {
	zw := lz4Writers.Get().(*lz4.Writer)
	defer lz4Writers.Put(zw)
	w := appendWriter{b: dst}
	zw.Reset(&w)
	if _, err := zw.Write(src); err != nil {
		return dst, fmt.Errorf("record: lz4: %w", err)
	}
	if err := zw.Close(); err != nil {
		return dst, fmt.Errorf("record: lz4: %w", err)
	}
	return w.b, nil
}
