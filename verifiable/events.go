package verifiable

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"kafgo/internal/javanum"
)

// printer writes events, one JSON object per line, whole lines at a time
// (Kafka's tools synchronize on System.out).
type printer struct {
	mu  sync.Mutex
	out io.Writer
	now func() time.Time
}

func newPrinter(out io.Writer, now func() time.Time) *printer {
	if now == nil {
		now = time.Now
	}
	return &printer{out: out, now: now}
}

// obj builds one JSON object with its fields in the order they are added.
type obj struct{ b bytes.Buffer }

func (o *obj) key(k string) {
	if o.b.Len() > 1 {
		o.b.WriteByte(',')
	}
	o.b.WriteString(quote(k))
	o.b.WriteByte(':')
}

func (o *obj) str(k, v string) *obj { o.key(k); o.b.WriteString(quote(v)); return o }
func (o *obj) int(k string, v int64) *obj {
	o.key(k)
	o.b.WriteString(strconv.FormatInt(v, 10))
	return o
}
func (o *obj) bool(k string, v bool) *obj { o.key(k); o.b.WriteString(strconv.FormatBool(v)); return o }
func (o *obj) raw(k, v string) *obj       { o.key(k); o.b.WriteString(v); return o }

// strOrNull is a Java String that may be null.
func (o *obj) strOrNull(k string, v *string) *obj {
	if v == nil {
		return o.raw(k, "null")
	}
	return o.str(k, *v)
}

// double is a Java double as Jackson writes it (Double.toString; NaN and
// the infinities as strings).
func (o *obj) double(k string, v float64) *obj {
	s := javanum.FormatDouble(v)
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return o.str(k, s)
	}
	return o.raw(k, s)
}

func newObj() *obj {
	o := &obj{}
	o.b.WriteByte('{')
	return o
}

func (o *obj) String() string { return o.b.String() + "}" }

// quote is a JSON string as Jackson writes it: UTF-8 as is, only quotes,
// backslashes and control characters escaped.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// event starts an event object: timestamp, then name.
func (p *printer) event(name string) *obj {
	return newObj().int("timestamp", p.now().UnixMilli()).str("name", name)
}

func (p *printer) print(o *obj) {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.out, o.String()+"\n")
}
