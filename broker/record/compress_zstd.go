package record

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdEncoder is shared: EncodeAll is safe for concurrent use and keeps its
// own pool of per-call state. Zero frames keep an empty input decodable by
// every zstd reader.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithZeroFrames(true))
	if err != nil {
		panic("record: zstd encoder options rejected: " + err.Error()) // fixed options; cannot happen
	}
	return enc
})

// pooledZstd is a single-threaded decoder (concurrency 1 starts no
// goroutines, so a decoder the pool drops is simply collected) remembering
// the limit it was last configured with.
type pooledZstd struct {
	d     *zstd.Decoder
	limit int
}

var zstdDecoders sync.Pool

// zstdWindowFloor is the least decoder limit used. The decoder caps a
// frame's window at its limit, and rejects a frame with a larger window
// even when the frame's content is small, so a caller's small limit would
// refuse ordinary producer frames (windows of 2-8 MiB). The real limit is
// then checked on the output, so at worst about this much is decoded in
// vain.
const zstdWindowFloor = 8 << 20

// unzstd decodes with DecodeAll, which enforces WithDecoderMaxMemory both
// against a frame's declared content size, before allocating, and while
// decoding, and counts all frames of src against it.
func unzstd(dst, src []byte, limit int) ([]byte, error) {
	lim := max(limit, zstdWindowFloor)
	pz, _ := zstdDecoders.Get().(*pooledZstd)
	if pz == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(lim)))
		if err != nil {
			return dst, fmt.Errorf("zstd: %w", err)
		}
		pz = &pooledZstd{d: d, limit: lim}
	} else if pz.limit != lim {
		if err := pz.d.ResetWithOptions(nil, zstd.WithDecoderMaxMemory(uint64(lim))); err != nil {
			return dst, fmt.Errorf("zstd: %w", err)
		}
		pz.limit = lim
	}
	defer zstdDecoders.Put(pz)
	// Decode into the free tail of dst: the decoder counts what dst
	// already holds against its limit.
	start := len(dst)
	out, err := pz.d.DecodeAll(src, dst[start:start])
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || (err == nil && len(out) > limit) {
		return dst, fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
	}
	if err != nil {
		return dst, fmt.Errorf("zstd: %w", err)
	}
	// Either out already sits in dst's tail (append then copies onto
	// itself) or the decoder grew a new buffer.
	return append(dst, out...), nil
}
