// Package javanum prints numbers as Java does, for output and stored values
// that Kafka's tools produce from Java doubles: String.valueOf (quota values
// such as "producer_byte_rate=1048576.0", "request_percentage=1.0E7") and
// String.format's %.Nf (the perf tools' figures). It is a leaf shared by the
// broker and the command-line tools.
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
	if s, ok := nonFinite(f); ok {
		return s
	}
	switch {
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

// FormatFixed formats like Java's %.Nf: it rounds the shortest decimal form
// of f half-up (where Go rounds the exact binary value half-even, so 2.675
// prints 2.68 in Java and 2.67 in Go), and prints NaN and Infinity by name.
func FormatFixed(f float64, prec int) string {
	if s, ok := nonFinite(f); ok {
		return s
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

// nonFinite is how Java prints NaN and the infinities, by name.
func nonFinite(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}
