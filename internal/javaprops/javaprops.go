// Package javaprops reads and writes the java.util.Properties text format,
// which Kafka uses for meta.properties and client config files.
package javaprops

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Parse reads the java.util.Properties text format: '#' and '!'
// comment lines, key and value split by the first unescaped '=', ':' or
// whitespace, a trailing backslash continuing the logical line, and the
// \t \n \r \f \uXXXX escapes. Operators copy these files from their Kafka
// installs, so the format has to be the real one rather than plain k=v.
func Parse(r io.Reader) (map[string]string, error) {
	out := make(map[string]string)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var logical strings.Builder
	continuing := false
	for sc.Scan() {
		line := sc.Text()
		if continuing {
			line = strings.TrimLeftFunc(line, unicode.IsSpace)
		} else {
			trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
			if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
				continue
			}
			line = trimmed
		}
		if endsWithOddBackslashes(line) {
			logical.WriteString(line[:len(line)-1])
			continuing = true
			continue
		}
		logical.WriteString(line)
		continuing = false
		k, v, err := splitPropertyLine(logical.String())
		logical.Reset()
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading properties: %w", err)
	}
	if continuing {
		k, v, err := splitPropertyLine(logical.String())
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func endsWithOddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitPropertyLine splits one logical line into its unescaped key and value.
func splitPropertyLine(line string) (string, string, error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	key := line[:end]
	rest := line[end:]
	// The separator is optional whitespace, then at most one '=' or ':',
	// then optional whitespace.
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = rest[1:]
	}
	rest = strings.TrimLeft(rest, " \t\f")
	k, err := unescapeProperty(key)
	if err != nil {
		return "", "", err
	}
	v, err := unescapeProperty(rest)
	if err != nil {
		return "", "", err
	}
	return k, v, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx encoding in %q", s)
			}
			r, err := hex4(s[i+1 : i+5])
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx encoding in %q: %w", s, err)
			}
			i += 4
			// Java strings are UTF-16: a character outside the BMP is
			// written as two escapes, a high and a low surrogate, which
			// together are one rune.
			if utf16.IsSurrogate(r) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := hex4(s[i+3 : i+7]); err == nil {
					if pair := utf16.DecodeRune(r, lo); pair != unicode.ReplacementChar {
						r = pair
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// hex4 decodes the four hex digits of a \uXXXX escape.
func hex4(s string) (rune, error) {
	n, err := strconv.ParseUint(s, 16, 16)
	return rune(n), err
}

// Escape escapes a value the way Properties.store writes it: backslash,
// the control characters \t \n \r \f, and = : # ! escaped, and a
// leading space escaped so that reading the value back keeps it (the
// reader skips the whitespace before a value).
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		case ' ':
			if i == 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
