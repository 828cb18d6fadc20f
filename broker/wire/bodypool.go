package wire

import (
	"math/bits"
	"sync"
)

// Request bodies are the broker's main allocation: a produce request
// carries its record batches, tens to hundreds of KiB, and allocating each
// one drives the garbage collector. Bodies between minPooledBody and
// maxPooledBody bytes are read into buffers from power-of-two size-class
// pools instead; Request.Recycle gives one back once the handler holds
// nothing decoded from it. Bodies outside the range are allocated exactly
// as before (small ones cost little; large ones grow as bytes arrive, so a
// peer announcing a huge frame cannot make us allocate it up front).
const (
	minPooledShift = 12 // 4 KiB
	maxPooledShift = 20 // 1 MiB
	minPooledBody  = 1 << minPooledShift
	maxPooledBody  = 1 << maxPooledShift
)

var bodyPools [maxPooledShift - minPooledShift + 1]sync.Pool

// bodyClass is the index of the smallest class holding n bytes, false when
// n is outside the pooled range.
func bodyClass(n int) (int, bool) {
	if n < minPooledBody || n > maxPooledBody {
		return 0, false
	}
	return bits.Len(uint(n-1)) - minPooledShift, true
}

// getBody returns a buffer of length n from its class pool; ok is false
// when n is not pooled (the caller allocates).
func getBody(n int) (b []byte, ok bool) {
	c, ok := bodyClass(n)
	if !ok {
		return nil, false
	}
	if p, _ := bodyPools[c].Get().(*[]byte); p != nil {
		return (*p)[:n], true
	}
	return make([]byte, n, minPooledBody<<c), true
}

// putBody gives b back to its class pool; buffers whose capacity is not
// exactly a class size did not come from a pool and are left to the GC.
func putBody(b []byte) {
	c, ok := bodyClass(cap(b))
	if !ok || cap(b) != minPooledBody<<c {
		return
	}
	b = b[:0]
	bodyPools[c].Put(&b)
}
