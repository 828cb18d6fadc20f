package console

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ReaderConfig holds LineMessageReader's properties.
type ReaderConfig struct {
	ParseKey            bool
	KeySeparator        string
	ParseHeaders        bool
	HeadersDelimiter    string
	HeadersSeparator    string
	HeadersKeySeparator string
	IgnoreError         bool
	// NullMarker, when non-empty, makes a key, value or header value equal
	// to it null.
	NullMarker string
}

// DefaultReaderConfig returns Kafka's defaults.
func DefaultReaderConfig() ReaderConfig {
	return ReaderConfig{KeySeparator: "\t", HeadersDelimiter: "\t", HeadersSeparator: ",", HeadersKeySeparator: ":"}
}

// Unescape turns the escapes \t \n \r and \\ of a separator given on a
// command line into the characters: shells pass "key.separator=\t" through
// as a backslash and a t, and a literal tab is awkward to type. (kafgo
// convenience; Kafka takes the characters as given.)
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r", `\\`, `\`).Replace(s)
}

// ParseReaderConfig builds a ReaderConfig from --property values.
func ParseReaderConfig(props map[string]string) (ReaderConfig, error) {
	rc := DefaultReaderConfig()
	for k, v := range props {
		var err error
		switch strings.ToLower(k) {
		case "parse.key":
			rc.ParseKey, err = parseBool(k, v)
		case "key.separator":
			rc.KeySeparator = Unescape(v)
		case "parse.headers":
			rc.ParseHeaders, err = parseBool(k, v)
		case "headers.delimiter":
			rc.HeadersDelimiter = Unescape(v)
		case "headers.separator":
			rc.HeadersSeparator = Unescape(v)
		case "headers.key.separator":
			rc.HeadersKeySeparator = Unescape(v)
		case "ignore.error":
			rc.IgnoreError, err = parseBool(k, v)
		case "null.marker":
			rc.NullMarker = v
		default:
			return rc, fmt.Errorf("console: unknown reader property %q", k)
		}
		if err != nil {
			return rc, err
		}
	}
	if rc.NullMarker != "" {
		for _, s := range []struct{ name, v string }{
			{"key.separator", rc.KeySeparator}, {"headers.delimiter", rc.HeadersDelimiter},
			{"headers.separator", rc.HeadersSeparator}, {"headers.key.separator", rc.HeadersKeySeparator},
		} {
			if s.v == rc.NullMarker {
				return rc, fmt.Errorf("console: null.marker and %s may not be equal", s.name)
			}
		}
	}
	if rc.ParseHeaders && rc.HeadersSeparator == rc.HeadersKeySeparator {
		return rc, errors.New("console: headers.separator and headers.key.separator may not be equal")
	}
	for _, s := range []struct{ name, v string }{
		{"key.separator", rc.KeySeparator}, {"headers.delimiter", rc.HeadersDelimiter},
		{"headers.separator", rc.HeadersSeparator}, {"headers.key.separator", rc.HeadersKeySeparator},
	} {
		if s.v == "" {
			return rc, fmt.Errorf("console: %s may not be empty", s.name)
		}
	}
	return rc, nil
}

func parseBool(k, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("console: property %s=%q: want true or false", k, v)
}

// LineReader turns input lines into records.
type LineReader struct {
	cfg    ReaderConfig
	lineNo int
}

// NewLineReader returns a reader for cfg.
func NewLineReader(cfg ReaderConfig) *LineReader { return &LineReader{cfg: cfg} }

// Parse parses the next line (without its line terminator). The errors
// carry LineMessageReader's wording, line numbers counted from 1.
func (lr *LineReader) Parse(line string) (*kgo.Record, error) {
	lr.lineNo++
	rest := line
	var headers, key *string
	if lr.cfg.ParseHeaders {
		h, after, ok := strings.Cut(rest, lr.cfg.HeadersDelimiter)
		switch {
		case ok:
			headers, rest = &h, after
		case !lr.cfg.IgnoreError:
			return nil, fmt.Errorf("No headers delimiter found on line number %d: '%s'", lr.lineNo, line)
		}
	}
	if lr.cfg.ParseKey {
		k, after, ok := strings.Cut(rest, lr.cfg.KeySeparator)
		switch {
		case ok:
			key, rest = &k, after
		case !lr.cfg.IgnoreError:
			return nil, fmt.Errorf("No key separator found on line number %d: '%s'", lr.lineNo, line)
		}
	}
	r := &kgo.Record{}
	if key != nil && !lr.isNull(*key) {
		r.Key = []byte(*key)
	}
	if !lr.isNull(rest) {
		r.Value = []byte(rest)
	}
	if headers != nil && !lr.isNull(*headers) {
		for _, pair := range strings.Split(*headers, lr.cfg.HeadersSeparator) {
			k, v, ok := strings.Cut(pair, lr.cfg.HeadersKeySeparator)
			if !ok {
				if !lr.cfg.IgnoreError {
					return nil, fmt.Errorf("No header key separator found in pair '%s' on line number %d", pair, lr.lineNo)
				}
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: pair})
				continue
			}
			if lr.isNull(k) {
				return nil, fmt.Errorf("Header keys should not be equal to the null marker '%s' as they can't be null", lr.cfg.NullMarker)
			}
			h := kgo.RecordHeader{Key: k}
			if !lr.isNull(v) {
				h.Value = []byte(v)
			}
			r.Headers = append(r.Headers, h)
		}
	}
	return r, nil
}

func (lr *LineReader) isNull(s string) bool {
	return lr.cfg.NullMarker != "" && s == lr.cfg.NullMarker
}
