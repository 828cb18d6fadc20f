// Package javaprops reads and writes the java.util.Properties text format,
// which Kafka uses for server.properties, meta.properties and client config
// files.
//
// The reader follows Properties.load: a logical line is one or more natural
// lines (ended by \n, \r or \r\n) joined where a line ends in an odd number
// of backslashes, the leading blanks (space, \t, \f) of each continuation
// line dropped; a line whose first non-blank character is '#' or '!' is a
// comment, unless it continues a previous line; blank lines are skipped. The
// key ends at the first unescaped '=', ':' or blank; the separator is blanks
// with at most one '=' or ':' among them. Keys and values unescape \t \n \r
// \f, \uXXXX (a surrogate pair of escapes is one character) and \x for any
// other x, which is x. A key given twice keeps its last value, as in a
// Hashtable; Entries keeps them all, so a caller can report the repeat.
package javaprops

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Entry is one key and value of a properties text, with the (1-based)
// line its logical line starts on.
type Entry struct {
	Key, Value string
	Line       int
}

// Parse reads r as UTF-8 properties text and returns its keys and values,
// the last value winning for a key given twice. Operators copy these files
// from their Kafka installs, so the format has to be the real one rather
// than plain k=v.
func Parse(r io.Reader) (map[string]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxText+1))
	if err != nil {
		return nil, fmt.Errorf("reading properties: %w", err)
	}
	if len(data) > maxText {
		return nil, fmt.Errorf("reading properties: more than %d bytes", maxText)
	}
	entries, err := Entries(string(data))
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		out[e.Key] = e.Value
	}
	return out, nil
}

// maxText bounds what Parse reads: config files are kilobytes.
const maxText = 16 << 20

// DecodeLatin1 turns bytes into text the way Properties.load(InputStream)
// does, and so Kafka's Utils.loadProps: every byte is one ISO-8859-1
// character. A UTF-8 "é" therefore reads as the two characters "Ã©", as
// it does for a Kafka broker; characters beyond Latin-1 belong in \uXXXX
// escapes, which Properties.store writes.
func DecodeLatin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// isBlank is Properties' whitespace: space, tab and form feed only.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimBlankLeft(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

// naturalLines splits text at \n, \r and \r\n, as Properties' LineReader.
func naturalLines(text string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, text[start:i])
			start = i + 1
		case '\r':
			lines = append(lines, text[start:i])
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(text) {
		lines = append(lines, text[start:])
	}
	return lines
}

// Entries parses properties text into its entries, in order, keeping a key
// given twice as two entries. Errors name the line.
func Entries(text string) ([]Entry, error) {
	var out []Entry
	var logical strings.Builder
	continuing := false
	first := 0 // line the current logical line starts on
	flush := func() error {
		k, v, err := splitPropertyLine(logical.String())
		logical.Reset()
		if err != nil {
			return fmt.Errorf("line %d: %w", first, err)
		}
		out = append(out, Entry{Key: k, Value: v, Line: first})
		return nil
	}
	for n, line := range naturalLines(text) {
		line = trimBlankLeft(line)
		if !continuing {
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			first = n + 1
		}
		if endsWithOddBackslashes(line) {
			logical.WriteString(line[:len(line)-1])
			continuing = true
			continue
		}
		logical.WriteString(line)
		continuing = false
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if continuing {
		// A backslash on the last line continues into nothing.
		if err := flush(); err != nil {
			return nil, err
		}
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
		if c == '=' || c == ':' || isBlank(c) {
			end = i
			break
		}
	}
	key := line[:end]
	rest := line[end:]
	// The separator is optional blanks, then at most one '=' or ':', then
	// optional blanks.
	rest = trimBlankLeft(rest)
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = rest[1:]
	}
	rest = trimBlankLeft(rest)
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
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return 0, fmt.Errorf("%q is not four hex digits", s)
		}
	}
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
