package coordlog

import (
	"math"
	"unicode/utf16"
)

// JavaStringHash is Java's String.hashCode: h = 31*h + c over the UTF-16
// code units of s, in int32 arithmetic with wraparound. Kafka places groups
// and transactional ids by it, so kafgo must too for a key to land on the
// same partition.
func JavaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// PartitionFor is the internal-topic partition of a key (a group id, a
// transactional id): Utils.abs(hashCode) % partitions, where Utils.abs maps
// MinInt32 to 0 (not to itself, as Math.abs does).
func PartitionFor(key string, partitions int32) int32 {
	if partitions <= 0 {
		return 0
	}
	h := JavaStringHash(key)
	switch {
	case h == math.MinInt32:
		h = 0
	case h < 0:
		h = -h
	}
	return h % partitions
}
