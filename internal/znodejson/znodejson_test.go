package znodejson

import (
	"errors"
	"testing"
)

func TestMarshalKeepsAnglesAndDropsTheNewline(t *testing.T) {
	got, err := Marshal(map[string]string{"b": "<default>", "a": "x&y"})
	if err != nil || string(got) != `{"a":"x&y","b":"<default>"}` {
		t.Fatalf("Marshal = %s, %v", got, err)
	}
}

func TestUnmarshalEmpty(t *testing.T) {
	var v map[string]any
	if err := Unmarshal([]byte(" \n"), &v); !errors.Is(err, ErrEmpty) {
		t.Fatalf("Unmarshal(blank) = %v, want ErrEmpty", err)
	}
	if err := Unmarshal([]byte(`{"a":1}`), &v); err != nil || v["a"] != 1.0 {
		t.Fatalf("Unmarshal = %v, %v", v, err)
	}
}

func TestText(t *testing.T) {
	for raw, want := range map[string]string{`"s"`: "s", `null`: "", `86400000`: "86400000", `1.5e3`: "1.5e3"} {
		if got, err := Text([]byte(raw)); err != nil || got != want {
			t.Errorf("Text(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{`true`, `[1]`, `{}`, `"unterminated`} {
		if _, err := Text([]byte(raw)); err == nil {
			t.Errorf("Text(%s): no error", raw)
		}
	}
}
