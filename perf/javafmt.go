package perf

import (
	"math"
	"strconv"
	"strings"
)

// javaFloat formats like Java's %.Nf: it rounds the shortest decimal form
// of f half-up (where Go rounds the exact binary value half-even, so 2.675
// prints 2.68 in Java and 2.67 in Go), and prints NaN and Infinity by name.
func javaFloat(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	neg := math.Signbit(f)
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) <= prec {
		frac += strings.Repeat("0", prec-len(frac))
	} else {
		up := frac[prec] >= '5'
		digits := []byte(whole + frac[:prec])
		if up {
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			}
		}
		whole, frac = string(digits[:len(digits)-prec]), string(digits[len(digits)-prec:])
	}
	out := whole
	if prec > 0 {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}

// finite replaces what JSON cannot carry with 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
