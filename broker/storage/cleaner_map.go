package storage

import (
	"hash/maphash"
	"math/bits"
)

// offsetMapSlotBytes is the memory of one slot: a 128-bit key hash and an
// offset, the 24 bytes of Kafka's SkimpyOffsetMap entry (MD5 + offset).
const offsetMapSlotBytes = 24

// minOffsetMapSlots is where a map starts before it grows.
const minOffsetMapSlots = 1 << 12

// growLoad is the load at which a table below its bound doubles. Linear
// probing slows down sharply past one half (about 1/(1-load)^2 probes for
// a miss), so only a table at its memory bound fills up to loadFactor.
const growLoad = 0.5

// offsetMap is the cleaner's "latest offset of each key" over the dirty
// section of a log (Kafka's SkimpyOffsetMap): an open-addressing table with
// linear probing that stores a 128-bit hash of each key, never the key.
//
// Invariants:
//   - at most maxSlots slots, so the table stays within
//     log.cleaner.dedupe.buffer.size per cleaner thread; it starts small and
//     doubles whenever it is half full (during a doubling the old and new
//     tables are both alive for a moment);
//   - at most maxSlots*loadFactor keys (log.cleaner.io.buffer.load.factor),
//     so probes stay short; put reports a full map instead of going beyond;
//   - a slot's off holds offset+1, so the zero slot is empty.
//
// Two keys with the same 128-bit hash would share a slot and the older one
// could be dropped wrongly; with 2^-128 per pair that is as unlikely as an
// MD5 collision in Kafka's map, and cheaper to compute.
type offsetMap struct {
	slots      []mapSlot
	used       int
	maxSlots   int
	hs         []keyHash // scratch of mapBatch
	offs       []int64
	sink       int64 // keeps the compiler from dropping prefetch's loads
	loadFactor float64
	seed1      maphash.Seed
	seed2      maphash.Seed
	latest     int64 // largest offset put since reset, -1 when none
}

type mapSlot struct {
	h1, h2 uint64
	off    int64 // offset+1; 0 = empty
}

// keyHash is the 128-bit hash of a key under the map's current seeds.
type keyHash struct{ h1, h2 uint64 }

// newOffsetMap returns a map of at most memBytes (at least two slots) that
// holds keys up to loadFactor of its slots.
func newOffsetMap(memBytes int64, loadFactor float64) *offsetMap {
	maxSlots := max(int(min(memBytes/offsetMapSlotBytes, int64(1)<<40)), 2)
	if !(loadFactor > 0 && loadFactor <= 1) {
		loadFactor = 0.9
	}
	m := &offsetMap{maxSlots: maxSlots, loadFactor: loadFactor}
	m.reset()
	return m
}

// reset empties the map for a new pass, with fresh hash seeds. The table
// keeps its size: a thread that cleaned a big log once will again.
func (m *offsetMap) reset() {
	if m.slots == nil {
		m.slots = make([]mapSlot, min(minOffsetMapSlots, m.maxSlots))
	} else {
		clear(m.slots)
	}
	m.used = 0
	m.latest = -1
	m.seed1, m.seed2 = maphash.MakeSeed(), maphash.MakeSeed()
}

// size is the number of distinct keys.
func (m *offsetMap) size() int { return m.used }

// capacity is how many distinct keys the map may ever hold; one slot always
// stays empty so that every probe ends.
func (m *offsetMap) capacity() int {
	return max(min(int(float64(m.maxSlots)*m.loadFactor), m.maxSlots-1), 1)
}

func (m *offsetMap) hash(key []byte) keyHash {
	return keyHash{maphash.Bytes(m.seed1, key), maphash.Bytes(m.seed2, key)}
}

// prefetch loads the home slot of each hash. A table larger than the CPU
// caches costs a memory round trip per lookup; these loads do not depend
// on each other, so the CPU overlaps their misses, and the lookups that
// follow mostly hit the cache. The lookups of a batch are done this way
// (it halves the time of a cleaning pass on a 1 GiB log).
func (m *offsetMap) prefetch(hs []keyHash) {
	var x int64
	n := len(m.slots)
	for _, h := range hs {
		x += m.slots[home(h.h1, n)].off
	}
	m.sink = x
}

// home maps a hash onto [0, n) without a division (Lemire's multiply-shift).
func home(h uint64, n int) int {
	hi, _ := bits.Mul64(h, uint64(n))
	return int(hi)
}

// put records offset as the latest of key. It returns false, changing
// nothing, when key is new and the map already holds capacity() keys.
func (m *offsetMap) put(key []byte, offset int64) bool { return m.putHash(m.hash(key), offset) }

// putHash is put for a key hashed with hash.
func (m *offsetMap) putHash(k keyHash, offset int64) bool {
	h1, h2 := k.h1, k.h2
	if i, ok := m.find(h1, h2); ok {
		m.slots[i].off = offset + 1
		m.latest = max(m.latest, offset)
		return true
	}
	if m.used >= m.capacity() {
		return false
	}
	if float64(m.used+1) > float64(len(m.slots))*growLoad && len(m.slots) < m.maxSlots {
		m.grow()
	}
	m.insert(h1, h2, offset+1)
	m.used++
	m.latest = max(m.latest, offset)
	return true
}

// get returns the latest offset recorded for key.
func (m *offsetMap) get(key []byte) (int64, bool) { return m.getHash(m.hash(key)) }

// getHash is get for a key hashed with hash.
func (m *offsetMap) getHash(k keyHash) (int64, bool) {
	i, ok := m.find(k.h1, k.h2)
	if !ok {
		return -1, false
	}
	return m.slots[i].off - 1, true
}

// find probes for (h1, h2); at least one slot is always empty, so the probe
// ends.
func (m *offsetMap) find(h1, h2 uint64) (int, bool) {
	n := len(m.slots)
	for i := home(h1, n); ; {
		s := &m.slots[i]
		if s.off == 0 {
			return i, false
		}
		if s.h1 == h1 && s.h2 == h2 {
			return i, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

func (m *offsetMap) insert(h1, h2 uint64, off int64) {
	i, _ := m.find(h1, h2)
	m.slots[i] = mapSlot{h1: h1, h2: h2, off: off}
}

// grow doubles the table (capped at maxSlots) and rehashes every key; the
// full hashes are stored, so no key is needed.
func (m *offsetMap) grow() {
	old := m.slots
	m.slots = make([]mapSlot, min(2*len(old), m.maxSlots))
	for _, s := range old {
		if s.off != 0 {
			m.insert(s.h1, s.h2, s.off)
		}
	}
}
