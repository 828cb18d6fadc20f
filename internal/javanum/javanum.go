// Package javanum prints numbers as Java's String.valueOf does, for output
// and stored values that Kafka's tools produce from Java doubles (quota
// values such as "producer_byte_rate=1048576.0", "request_percentage=1.0E7").
// It is a leaf shared by the broker and the command-line tools.
package javanum

import (
	"math"
	"strconv"
	"strings"
)

// FormatDouble is Java's Double.toString: plain decimal with at least one
// digit after the point for magnitudes in [1e-3, 1e7), otherwise
// "computerized scientific notation" (1.0E7, 1.5E-4); the digits are the
// shortest that read back to the same double, as Java 19+ prints them.
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. 1.5e-04, 1e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}
