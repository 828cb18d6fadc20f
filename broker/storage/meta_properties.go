package storage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MetaProperties is the content of a log dir's meta.properties in ZooKeeper
// mode (version 0): which broker and cluster the directory belongs to.
type MetaProperties struct {
	BrokerID  int32
	ClusterID string // "" when an old file has none
}

// javaDateLayout is java.util.Date.toString, which Properties.store writes as
// the second comment line.
const javaDateLayout = "Mon Jan 02 15:04:05 MST 2006"

// ReadMetaProperties parses meta.properties. Only version 0 (ZooKeeper
// mode) is accepted: a version 1 file belongs to a KRaft node.
func ReadMetaProperties(path string) (MetaProperties, error) {
	var mp MetaProperties
	data, err := readSmallFile(path, 64<<10)
	if err != nil {
		return mp, err
	}
	props, err := parseJavaProperties(path, data)
	if err != nil {
		return mp, err
	}
	if v := props["version"]; v != "0" {
		return mp, fmt.Errorf("storage: %s: version %q, only 0 (ZooKeeper mode) is supported: %w", path, v, ErrCorruptFile)
	}
	id, err := strconv.ParseInt(props["broker.id"], 10, 32)
	if err != nil {
		return mp, fmt.Errorf("storage: %s: broker.id %q is not an int32: %w", path, props["broker.id"], ErrCorruptFile)
	}
	mp.BrokerID = int32(id)
	mp.ClusterID = props["cluster.id"]
	return mp, nil
}

// WriteMetaProperties atomically writes meta.properties in the layout
// Properties.store produces: an empty comment, the date, then the keys.
func WriteMetaProperties(path string, mp MetaProperties, now time.Time) error {
	return writeFileAtomic(path, formatMetaProperties(mp, now))
}

func formatMetaProperties(mp MetaProperties, now time.Time) []byte {
	var b strings.Builder
	b.WriteString("#\n#")
	b.WriteString(now.UTC().Format(javaDateLayout))
	b.WriteString("\nversion=0\n")
	fmt.Fprintf(&b, "broker.id=%d\n", mp.BrokerID)
	if mp.ClusterID != "" {
		b.WriteString("cluster.id=")
		b.WriteString(escapeJavaProperty(mp.ClusterID))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// parseJavaProperties reads the java.util.Properties text format: '#' or '!'
// comments, key and value separated by '=', ':' or whitespace, backslash
// escapes and line continuations.
func parseJavaProperties(path string, data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("storage: %s: not UTF-8 text: %w", path, ErrCorruptFile)
	}
	out := map[string]string{}
	raw := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(raw); i++ {
		lineNo := i + 1
		line := strings.TrimLeft(raw[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// A line ending in an odd number of backslashes continues.
		for endsWithContinuation(line) && i+1 < len(raw) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(raw[i], " \t\f")
		}
		key, value := splitProperty(line)
		k, err := unescapeJavaProperty(key)
		if err != nil {
			return nil, fmt.Errorf("storage: %s line %d: %w: %w", path, lineNo, err, ErrCorruptFile)
		}
		v, err := unescapeJavaProperty(value)
		if err != nil {
			return nil, fmt.Errorf("storage: %s line %d: %w: %w", path, lineNo, err, ErrCorruptFile)
		}
		out[k] = v
	}
	return out, nil
}

func endsWithContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty separates key and value at the first unescaped '=', ':' or
// whitespace; whitespace around the separator, and one '=' or ':' after
// whitespace, belong to neither, as in Properties.load.
func splitProperty(line string) (key, value string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || isPropertySpace(c) {
			break
		}
		i++
	}
	i = min(i, len(line))
	rest := line[i:]
	j := 0
	for j < len(rest) && isPropertySpace(rest[j]) {
		j++
	}
	if j < len(rest) && (rest[j] == '=' || rest[j] == ':') {
		j++
		for j < len(rest) && isPropertySpace(rest[j]) {
			j++
		}
	}
	return line[:i], rest[j:]
}

func isPropertySpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

var errBadEscape = errors.New("bad \\u escape")

func unescapeJavaProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
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
				return "", errBadEscape
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", errBadEscape
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// escapeJavaProperty escapes the characters Properties.store escapes in a
// value; generated cluster ids never contain any, user-supplied ones might.
func escapeJavaProperty(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\f", `\f`, "=", `\=`, ":", `\:`, "#", `\#`, "!", `\!`)
	return r.Replace(s)
}
