package storage

import (
	"fmt"
	"math"
	"testing"
)

// TestCleanerOffsetMap: put keeps the latest offset per key, get finds it,
// the table grows as keys arrive without losing any, and a full map refuses
// new keys while still updating known ones.
func TestCleanerOffsetMap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		memBytes int64
		keys     int
		wantFull bool
	}{
		{"fits without growing", 1 << 20, 100, false},
		{"grows several times", 16 << 20, 100_000, false},
		{"full at the memory bound", 24 * 1000, 2000, true},
		{"two slots", 1, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newOffsetMap(tc.memBytes, 0.9)
			stored := 0
			full := false
			for i := 0; i < tc.keys; i++ {
				if !m.put([]byte(fmt.Sprintf("key-%d", i)), int64(i)) {
					full = true
					break
				}
				stored++
			}
			if full != tc.wantFull {
				t.Fatalf("full %v after %d keys, want %v", full, stored, tc.wantFull)
			}
			if full && stored != m.capacity() {
				t.Fatalf("full after %d keys, capacity %d", stored, m.capacity())
			}
			if int64(len(m.slots))*offsetMapSlotBytes > max(tc.memBytes, 2*offsetMapSlotBytes) {
				t.Fatalf("%d slots exceed %d bytes", len(m.slots), tc.memBytes)
			}
			// Updates of known keys succeed even when full.
			for i := 0; i < stored; i++ {
				if !m.put([]byte(fmt.Sprintf("key-%d", i)), int64(i)+1_000_000) {
					t.Fatalf("update of key-%d refused", i)
				}
			}
			for i := 0; i < stored; i++ {
				off, ok := m.get([]byte(fmt.Sprintf("key-%d", i)))
				if !ok || off != int64(i)+1_000_000 {
					t.Fatalf("get(key-%d) = %d, %v", i, off, ok)
				}
			}
			if _, ok := m.get([]byte("absent")); ok {
				t.Fatal("absent key found")
			}
			if m.size() != stored {
				t.Fatalf("size %d, want %d", m.size(), stored)
			}
			if stored > 0 && m.latest != int64(stored-1)+1_000_000 {
				t.Fatalf("latest %d", m.latest)
			}
			m.reset()
			if m.size() != 0 || m.latest != -1 {
				t.Fatal("reset left keys")
			}
			if _, ok := m.get([]byte("key-0")); ok {
				t.Fatal("key survives reset")
			}
		})
	}
}

// TestCleanerOffsetMapEmptyAndNullKeys: an empty key is a key like any
// other (only a null key is keyless), distinct from every other key.
func TestCleanerOffsetMapEmptyAndNullKeys(t *testing.T) {
	m := newOffsetMap(1<<16, 0.9)
	m.put([]byte{}, 5)
	m.put([]byte("x"), 6)
	if off, ok := m.get([]byte{}); !ok || off != 5 {
		t.Fatalf("empty key: %d %v", off, ok)
	}
	if off, ok := m.get([]byte("x")); !ok || off != 6 {
		t.Fatalf("x: %d %v", off, ok)
	}
}

func TestCleanerOffsetMapBadLoadFactor(t *testing.T) {
	for _, lf := range []float64{0, -1, 2, math.NaN()} {
		if m := newOffsetMap(1<<16, lf); m.loadFactor != 0.9 {
			t.Errorf("load factor %v became %v, want 0.9", lf, m.loadFactor)
		}
	}
}
