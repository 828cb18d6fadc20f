package console

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// FormatterConfig holds DefaultMessageFormatter's properties.
type FormatterConfig struct {
	PrintTimestamp   bool
	PrintKey         bool
	PrintOffset      bool
	PrintPartition   bool
	PrintHeaders     bool
	PrintValue       bool
	KeySeparator     string
	LineSeparator    string
	HeadersSeparator string
	NullLiteral      string
}

// DefaultFormatterConfig returns Kafka's defaults: only the value, one per
// line.
func DefaultFormatterConfig() FormatterConfig {
	return FormatterConfig{PrintValue: true, KeySeparator: "\t", LineSeparator: "\n", HeadersSeparator: ",", NullLiteral: "null"}
}

// ParseFormatterConfig builds a FormatterConfig from --property values.
// Deserializer properties are accepted and ignored: bytes are printed as
// they are, which is what Kafka's default StringDeserializer does for UTF-8.
func ParseFormatterConfig(props map[string]string) (FormatterConfig, error) {
	fc := DefaultFormatterConfig()
	for k, v := range props {
		var err error
		switch strings.ToLower(k) {
		case "print.timestamp":
			fc.PrintTimestamp, err = parseBool(k, v)
		case "print.key":
			fc.PrintKey, err = parseBool(k, v)
		case "print.offset":
			fc.PrintOffset, err = parseBool(k, v)
		case "print.partition":
			fc.PrintPartition, err = parseBool(k, v)
		case "print.headers":
			fc.PrintHeaders, err = parseBool(k, v)
		case "print.value":
			fc.PrintValue, err = parseBool(k, v)
		case "key.separator":
			fc.KeySeparator = Unescape(v)
		case "line.separator":
			fc.LineSeparator = Unescape(v)
		case "headers.separator":
			fc.HeadersSeparator = Unescape(v)
		case "null.literal":
			fc.NullLiteral = v
		case "key.deserializer", "value.deserializer", "headers.deserializer":
		default:
			return fc, fmt.Errorf("console: unknown formatter property %q", k)
		}
		if err != nil {
			return fc, err
		}
	}
	return fc, nil
}

// Format appends one record in DefaultMessageFormatter's layout to b.
func (fc *FormatterConfig) Format(b []byte, r *kgo.Record) []byte {
	type field struct {
		on  bool
		put func([]byte) []byte
	}
	fields := [...]field{
		{fc.PrintTimestamp, func(b []byte) []byte {
			switch r.Attrs.TimestampType() {
			case 0:
				b = append(b, "CreateTime:"...)
			case 1:
				b = append(b, "LogAppendTime:"...)
			default:
				return append(b, "NO_TIMESTAMP"...)
			}
			return strconv.AppendInt(b, r.Timestamp.UnixMilli(), 10)
		}},
		{fc.PrintPartition, func(b []byte) []byte {
			return strconv.AppendInt(append(b, "Partition:"...), int64(r.Partition), 10)
		}},
		{fc.PrintOffset, func(b []byte) []byte {
			return strconv.AppendInt(append(b, "Offset:"...), r.Offset, 10)
		}},
		{fc.PrintHeaders, func(b []byte) []byte {
			if len(r.Headers) == 0 {
				return append(b, "NO_HEADERS"...)
			}
			for i, h := range r.Headers {
				if i > 0 {
					b = append(b, fc.HeadersSeparator...)
				}
				b = append(append(b, h.Key...), ':')
				b = fc.nullable(b, h.Value)
			}
			return b
		}},
		{fc.PrintKey, func(b []byte) []byte { return fc.nullable(b, r.Key) }},
		{fc.PrintValue, func(b []byte) []byte { return fc.nullable(b, r.Value) }},
	}
	first := true
	for _, f := range fields {
		if !f.on {
			continue
		}
		if !first {
			b = append(b, fc.KeySeparator...)
		}
		first = false
		b = f.put(b)
	}
	return append(b, fc.LineSeparator...)
}

func (fc *FormatterConfig) nullable(b, v []byte) []byte {
	if v == nil {
		return append(b, fc.NullLiteral...)
	}
	return append(b, v...)
}

// writeRecord formats r to w.
func (fc *FormatterConfig) writeRecord(w io.Writer, buf []byte, r *kgo.Record) ([]byte, error) {
	buf = fc.Format(buf[:0], r)
	if _, err := w.Write(buf); err != nil {
		return buf, fmt.Errorf("console: writing record: %w", err)
	}
	return buf, nil
}
