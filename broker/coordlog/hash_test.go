package coordlog

import "testing"

func TestJavaStringHash(t *testing.T) {
	cases := []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"a", 97},
		{"ab", 3105},
		{"hello", 99162322},
		// Famous for hashing to Integer.MIN_VALUE.
		{"polygenelubricants", -2147483648},
		// A non-BMP character counts as its two UTF-16 surrogates
		// (0xD83D, 0xDE00): 0xD83D*31 + 0xDE00.
		{"😀", 1772899},
		// Wraps around int32.
		{"console-consumer-12345", javaHashReference("console-consumer-12345")},
	}
	for _, tc := range cases {
		if got := JavaStringHash(tc.s); got != tc.want {
			t.Errorf("JavaStringHash(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// javaHashReference is the textbook formula sum s[i]*31^(n-1-i) in int64,
// reduced to int32 at the end, as an independent check of the wraparound.
func javaHashReference(s string) int32 {
	var h int64
	for _, c := range s { // ASCII only
		h = (h*31 + int64(c)) & 0xffffffff
	}
	return int32(uint32(h))
}

func TestPartitionFor(t *testing.T) {
	cases := []struct {
		group string
		n     int32
		want  int32
	}{
		{"", 50, 0},
		{"hello", 50, 99162322 % 50},
		{"polygenelubricants", 50, 0}, // Utils.abs(MIN_VALUE) = 0
		{"a", 1, 0},
		{"a", 0, 0},
	}
	for _, tc := range cases {
		if got := PartitionFor(tc.group, tc.n); got != tc.want {
			t.Errorf("PartitionFor(%q, %d) = %d, want %d", tc.group, tc.n, got, tc.want)
		}
	}
	// A negative hash takes its absolute value, not the low 31 bits.
	negatives := map[string]int32{"group-with-negative-hash-1": -100937903, "zzzzzzzzzzzzzzzz": -509494784}
	for s, h := range negatives {
		if got := JavaStringHash(s); got != h {
			t.Fatalf("JavaStringHash(%q) = %d, want %d", s, got, h)
		}
		if got, want := PartitionFor(s, 50), (-h)%50; got != want {
			t.Errorf("PartitionFor(%q) = %d, want %d", s, got, want)
		}
	}
}
