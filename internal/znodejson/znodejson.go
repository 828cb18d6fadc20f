// Package znodejson reads and writes JSON the way Kafka's znodes hold it
// (Jackson on the Java side): compact, without encoding/json's HTML
// escaping ("<default>" stays "<default>"), and with string values that a
// hand-written znode may give as numbers. The broker's znode schemas
// (broker/meta/znode) and dynamic config znodes (broker/meta/dynconfig)
// use it.
package znodejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrEmpty is Unmarshal's error for data with nothing but white space.
var ErrEmpty = errors.New("empty data")

// Marshal writes v without HTML escaping and without the trailing newline
// of json.Encoder; maps come out with sorted keys.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Unmarshal decodes a znode's data into v; unknown fields are ignored, as
// Kafka's parsers do. Empty data is ErrEmpty.
func Unmarshal(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return ErrEmpty
	}
	return json.Unmarshal(data, v)
}

// Text reads a value Kafka reads with toString: a string, or a number or
// null from a hand-written znode, kept as its JSON text ("" for null).
func Text(raw []byte) (string, error) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case string(raw) == "null":
		return "", nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("%s is neither a string nor a number", raw)
	}
	return n.String(), nil
}
