package tui

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// decodeMode is how the message browser shows keys and values.
type decodeMode int

const (
	decodeText decodeMode = iota // UTF-8, escaping what does not print
	decodeJSON                   // pretty-printed when valid, else as text
	decodeHex                    // bytes in hex
	numDecodeModes
)

func (d decodeMode) String() string {
	return [...]string{"text", "json", "hex"}[d]
}

// escapeText shows b as text: valid UTF-8 as it is with control
// characters escaped (\n, \t, \x1b), any other byte as \xNN, so nothing
// written reaches the terminal as a control sequence.
func escapeText(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case !unicode.IsPrint(r) && r != ' ':
			if r < 0x100 {
				fmt.Fprintf(&sb, `\x%02x`, r)
			} else {
				fmt.Fprintf(&sb, `\u%04x`, r)
			}
		default:
			sb.WriteRune(r)
		}
		b = b[n:]
	}
	return sb.String()
}

// oneLine is a key or value on one line of the record list.
func oneLine(b []byte, size int, mode decodeMode) string {
	if size < 0 {
		return "null"
	}
	var s string
	switch mode {
	case decodeHex:
		s = hex.EncodeToString(b[:min(len(b), 256)])
	case decodeJSON:
		var buf bytes.Buffer
		if json.Valid(b) && json.Compact(&buf, b) == nil {
			s = escapeText(buf.Bytes())
			break
		}
		s = escapeText(b)
	default:
		s = escapeText(b)
	}
	if size > len(b) {
		s += "…"
	}
	return s
}

// detailLines shows a key or value in full (as far as the browser kept
// it) for the record page.
func detailLines(b []byte, size int, mode decodeMode, width int) []string {
	if size < 0 {
		return []string{"null"}
	}
	var out []string
	switch mode {
	case decodeHex:
		out = hexDump(b)
	case decodeJSON:
		var buf bytes.Buffer
		if json.Valid(b) && json.Indent(&buf, b, "", "  ") == nil {
			for _, l := range strings.Split(buf.String(), "\n") {
				out = append(out, escapeText([]byte(l)))
			}
			break
		}
		// Not JSON (a plain key, say): as text.
		out = wrapText(escapeText(b), width)
	default:
		// Lines as written, each escaped and wrapped.
		for _, l := range strings.Split(string(b), "\n") {
			out = append(out, wrapText(escapeText([]byte(l)), width)...)
		}
	}
	if size > len(b) {
		out = append(out, fmt.Sprintf("… %d of %d bytes shown", len(b), size))
	}
	return out
}

// hexDump is hexdump -C's layout: offset, 16 bytes in hex, and as ASCII.
func hexDump(b []byte) []string {
	var out []string
	for off := 0; off < len(b); off += 16 {
		chunk := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for i := range 16 {
			if i == 8 {
				hx.WriteByte(' ')
			}
			if i < len(chunk) {
				fmt.Fprintf(&hx, "%02x ", chunk[i])
				if chunk[i] >= 0x20 && chunk[i] < 0x7f {
					asc.WriteByte(chunk[i])
				} else {
					asc.WriteByte('.')
				}
			} else {
				hx.WriteString("   ")
			}
		}
		out = append(out, fmt.Sprintf("%08x  %s |%s|", off, hx.String(), asc.String()))
	}
	if len(out) == 0 {
		out = append(out, "(empty)")
	}
	return out
}

// wrapText cuts s into lines of at most width runes.
func wrapText(s string, width int) []string {
	width = max(width, 8)
	r := []rune(s)
	if len(r) == 0 {
		return []string{""}
	}
	var out []string
	for len(r) > width {
		out = append(out, string(r[:width]))
		r = r[width:]
	}
	return append(out, string(r))
}

// bytesText is a record part's size in words: "12 bytes", "null".
func bytesText(n int) string {
	if n < 0 {
		return "null"
	}
	return plural(n, "byte", "bytes")
}

// sizeText is a record part's size, "null" when absent.
func sizeText(n int) string {
	if n < 0 {
		return "null"
	}
	return strconv.Itoa(n)
}
