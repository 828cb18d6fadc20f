package console

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func str(b []byte) string {
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

func describeRecord(r *kgo.Record) string {
	var b strings.Builder
	b.WriteString("key=" + str(r.Key) + " value=" + str(r.Value))
	for _, h := range r.Headers {
		b.WriteString(" h[" + h.Key + "]=" + str(h.Value))
	}
	return b.String()
}

func TestLineReader(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
		line  string
		want  string
		err   string
	}{
		{name: "value only", line: "hello\tworld", want: "key=<nil> value=hello\tworld"},
		{name: "empty line", line: "", want: "key=<nil> value="},
		{name: "key default tab", props: map[string]string{"parse.key": "true"}, line: "k\tv\tw", want: "key=k value=v\tw"},
		{name: "key colon", props: map[string]string{"parse.key": "true", "key.separator": ":"}, line: "user1:a:b", want: "key=user1 value=a:b"},
		{name: "key multi-char separator", props: map[string]string{"parse.key": "true", "key.separator": "::"}, line: "a::b", want: "key=a value=b"},
		{name: "escaped tab separator", props: map[string]string{"parse.key": "true", "key.separator": `\t`}, line: "a\tb", want: "key=a value=b"},
		{name: "missing key separator", props: map[string]string{"parse.key": "true", "key.separator": ":"}, line: "novalue",
			err: "No key separator found on line number 1: 'novalue'"},
		{name: "ignore error", props: map[string]string{"parse.key": "true", "key.separator": ":", "ignore.error": "true"}, line: "novalue", want: "key=<nil> value=novalue"},
		{name: "headers and key", props: map[string]string{"parse.key": "true", "parse.headers": "true", "key.separator": ":"},
			line: "h1:v1,h2:v2\tk:val", want: "key=k value=val h[h1]=v1 h[h2]=v2"},
		{name: "headers custom", props: map[string]string{"parse.headers": "true", "headers.delimiter": "|", "headers.separator": ";", "headers.key.separator": "="},
			line: "a=1;b=2|payload", want: "key=<nil> value=payload h[a]=1 h[b]=2"},
		{name: "header value with separator", props: map[string]string{"parse.headers": "true"}, line: "url:http://x\tv", want: "key=<nil> value=v h[url]=http://x"},
		{name: "missing headers delimiter", props: map[string]string{"parse.headers": "true"}, line: "noheaders",
			err: "No headers delimiter found on line number 1: 'noheaders'"},
		{name: "header without key separator", props: map[string]string{"parse.headers": "true"}, line: "bad\tv",
			err: "No header key separator found in pair 'bad' on line number 1"},
		{name: "null markers", props: map[string]string{"parse.key": "true", "parse.headers": "true", "key.separator": ":", "null.marker": "NULL"},
			line: "h:NULL\tNULL:NULL", want: "key=<nil> value=<nil> h[h]=<nil>"},
		{name: "null header key", props: map[string]string{"parse.headers": "true", "null.marker": "NULL"}, line: "NULL:v\tx",
			err: "Header keys should not be equal to the null marker 'NULL' as they can't be null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseReaderConfig(c.props)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewLineReader(cfg).Parse(c.line)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describeRecord(r); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestLineReaderCountsLines(t *testing.T) {
	cfg, err := ParseReaderConfig(map[string]string{"parse.key": "true", "key.separator": ":"})
	if err != nil {
		t.Fatal(err)
	}
	lr := NewLineReader(cfg)
	for _, l := range []string{"a:1", "b:2"} {
		if _, err := lr.Parse(l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lr.Parse("third"); err == nil || !strings.Contains(err.Error(), "line number 3") {
		t.Fatalf("error %v, want line number 3", err)
	}
}

func TestParseReaderConfigErrors(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
		err   string
	}{
		{"unknown", map[string]string{"parse.keys": "true"}, `console: unknown reader property "parse.keys"`},
		{"bad bool", map[string]string{"parse.key": "yes"}, `console: property parse.key="yes": want true or false`},
		{"marker equals separator", map[string]string{"null.marker": ":", "key.separator": ":"}, "console: null.marker and key.separator may not be equal"},
		{"header separators equal", map[string]string{"parse.headers": "true", "headers.separator": ":"}, "console: headers.separator and headers.key.separator may not be equal"},
		{"empty separator", map[string]string{"key.separator": ""}, "console: key.separator may not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseReaderConfig(c.props)
			if err == nil || err.Error() != c.err {
				t.Fatalf("error %v, want %q", err, c.err)
			}
		})
	}
}

func TestResolveGroup(t *testing.T) {
	cases := []struct {
		name       string
		flag       string
		cli, file  map[string]string
		want, werr string
	}{
		{name: "none"},
		{name: "flag", flag: "g", want: "g"},
		{name: "file", file: map[string]string{"group.id": "f"}, want: "f"},
		{name: "agree", flag: "g", cli: map[string]string{"group.id": "g"}, want: "g"},
		{name: "disagree", flag: "g", cli: map[string]string{"group.id": "h"},
			werr: "The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: 'g', 'h'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResolveGroup(c.flag, c.cli, c.file)
			if c.werr != "" {
				if err == nil || err.Error() != c.werr {
					t.Fatalf("error %v, want %q", err, c.werr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`\t`: "\t", `a\nb`: "a\nb", `\\t`: `\t`, `plain`: "plain", `\r`: "\r"} {
		t.Run(in, func(t *testing.T) {
			if got := Unescape(in); got != want {
				t.Fatalf("Unescape(%q) = %q, want %q", in, got, want)
			}
		})
	}
}
