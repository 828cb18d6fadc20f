package dumplog

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// javaString is what Java's new String(bytes, UTF_8) prints: each byte
// that is not part of valid UTF-8 becomes U+FFFD.
func javaString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r) // RuneError for an invalid byte, as Java's replacement
		b = b[n:]
	}
	return sb.String()
}

// jsonQuote quotes s the way Jackson does: only '"', '\\' and control
// characters are escaped, with the short forms for \b \t \n \f \r.
func jsonQuote(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if c < 0x20 {
				sb.WriteString(`\u00`)
				sb.WriteByte("0123456789ABCDEF"[c>>4])
				sb.WriteByte("0123456789ABCDEF"[c&0xf])
			} else {
				sb.WriteByte(c)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// hexBigInt is Scala's "%X".format(BigInt(1, bytes)), which Kafka uses for
// assignment and user data bytes: the bytes as one unsigned big-endian
// number in upper-case hex, leading zeros dropped ("0" for all zeros, ""
// for no bytes, where Kafka special-cases empty input).
func hexBigInt(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	const digits = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(2 * len(b))
	for _, c := range b {
		if sb.Len() == 0 {
			if c == 0 {
				continue
			}
			if c < 0x10 {
				sb.WriteByte(digits[c])
				continue
			}
		}
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&0xf])
	}
	if sb.Len() == 0 {
		return "0"
	}
	return sb.String()
}

// javaOptionLong is Scala's Option[Long] toString for an offset that is
// absent when negative.
func javaOptionLong(v int64) string {
	if v < 0 {
		return "None"
	}
	return "Some(" + strconv.FormatInt(v, 10) + ")"
}
