package javanum

import (
	"math"
	"testing"
)

// TestFormatDouble pins Java's Double.toString on the values quota tools
// print and store.
func TestFormatDouble(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1048576, "1048576.0"},
		{200, "200.0"},
		{0.5, "0.5"},
		{1e-3, "0.001"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{2.5e7, "2.5E7"},
		{math.MaxInt64, "9.223372036854776E18"},
		{math.MaxInt32, "2.147483647E9"},
		{1.5e-4, "1.5E-4"},
		{-3, "-3.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
	} {
		if got := FormatDouble(tc.in); got != tc.want {
			t.Errorf("FormatDouble(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
