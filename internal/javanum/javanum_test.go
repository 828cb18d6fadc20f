package javanum

import (
	"fmt"
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

func TestFormatFixed(t *testing.T) {
	cases := []struct {
		f    float64
		prec int
		want string
	}{
		{1999.680051, 6, "1999.680051"},
		{2.675, 2, "2.68"},
		{0.125, 2, "0.13"},
		{9.99, 1, "10.0"},
		{0, 4, "0.0000"},
		{1.0 / 3, 4, "0.3333"},
		{-1.25, 1, "-1.3"},
		{12, 0, "12"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.f, "/", c.prec), func(t *testing.T) {
			if got := FormatFixed(c.f, c.prec); got != c.want {
				t.Fatalf("FormatFixed(%v, %d) = %q, want %q", c.f, c.prec, got, c.want)
			}
		})
	}
	inf := 1.0
	for range 2000 {
		inf *= 10
	}
	if FormatFixed(inf, 2) != "Infinity" || FormatFixed(inf-inf, 2) != "NaN" {
		t.Fatal("Java prints Infinity and NaN by name")
	}
}
