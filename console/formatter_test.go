package console

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/clitest"
)

// fixedRecords are built directly, so the formatter's output can be golden
// without depending on broker timestamps. kgo's RecordAttrs cannot be set
// from outside, so the LogAppendTime and NO_TIMESTAMP forms come from
// records decoded off the wire in the round-trip tests.
func fixedRecords() []*kgo.Record {
	ts := time.UnixMilli(1700000000123)
	return []*kgo.Record{
		{Topic: "t", Partition: 2, Offset: 41, Timestamp: ts, Key: []byte("k1"), Value: []byte("v1"),
			Headers: []kgo.RecordHeader{{Key: "h1", Value: []byte("x")}, {Key: "h2", Value: nil}}},
		{Topic: "t", Partition: 0, Offset: 7, Timestamp: ts, Key: nil, Value: nil},
		{Topic: "t", Partition: 1, Offset: 0, Timestamp: ts, Key: []byte(""), Value: []byte("only value")},
	}
}

func TestFormatterGolden(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
	}{
		{"default", nil},
		{"everything", map[string]string{"print.timestamp": "true", "print.partition": "true", "print.offset": "true",
			"print.headers": "true", "print.key": "true"}},
		{"key-only", map[string]string{"print.key": "true", "print.value": "false"}},
		{"custom-separators", map[string]string{"print.key": "true", "print.headers": "true", "key.separator": " | ",
			"line.separator": `\n--\n`, "headers.separator": ";", "null.literal": "<null>"}},
		{"nothing", map[string]string{"print.value": "false"}},
		{"offset-partition", map[string]string{"print.offset": "true", "print.partition": "true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc, err := ParseFormatterConfig(c.props)
			if err != nil {
				t.Fatal(err)
			}
			var b []byte
			for _, r := range fixedRecords() {
				b = fc.Format(b, r)
			}
			clitest.Golden(t, "format-"+c.name+".golden", b)
		})
	}
}

func TestFormatterTimestampTypes(t *testing.T) {
	fc, err := ParseFormatterConfig(map[string]string{"print.timestamp": "true"})
	if err != nil {
		t.Fatal(err)
	}
	r := fixedRecords()[0]
	got := string(fc.Format(nil, r))
	if want := "CreateTime:1700000000123\tv1\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestParseFormatterConfigErrors(t *testing.T) {
	for _, c := range []struct{ k, v, want string }{
		{"print.keys", "true", `console: unknown formatter property "print.keys"`},
		{"print.key", "1", `console: property print.key="1": want true or false`},
	} {
		t.Run(c.k, func(t *testing.T) {
			_, err := ParseFormatterConfig(map[string]string{c.k: c.v})
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := ParseFormatterConfig(map[string]string{"value.deserializer": "org.apache.kafka.common.serialization.StringDeserializer"}); err != nil {
		t.Fatalf("deserializer properties must be accepted: %v", err)
	}
}
